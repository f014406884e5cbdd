// SPDX-License-Identifier: Apache-2.0
package io.mvbt.pagestore.redis;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

import javax.crypto.Cipher;
import javax.crypto.Mac;
import javax.crypto.SecretKey;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * Seals the values a store sends to Redis (pages and meta slots) with AES-GCM, and opens them:
 * whoever reads Redis sees ciphertext, and a value altered, moved to another page number or slot,
 * or taken from another store does not open. The layout is in docs/format.md ("Sealed values on
 * Redis"): a version byte, the key id, a 12-byte nonce, the ciphertext and its 16-byte tag.
 *
 * <p>Each store seals with its own key, derived from the application's key and the store's random
 * salt (HMAC-SHA256), so stores sharing an application key share no nonce space. Nonces are a
 * 64-bit count from ranges the writer reserves in the meta hash under its lease, as page numbers
 * are: no two values of a store are ever sealed with one nonce, whichever writer sealed them.
 */
final class PageSeals {
    /** What a value is, bound into its seal. */
    static final byte PAGE = 'P';
    static final byte META = 'M';
    private static final byte VERSION = 'S';
    private static final int NONCE_BYTES = 12;
    private static final int TAG_BITS = 128;
    private static final byte[] CONTEXT = "mvbt seal 1".getBytes(StandardCharsets.US_ASCII);

    private final SealingKeys keys;
    private final byte[] salt;
    /** The next nonce (the writer's); null for a reader, which only opens. */
    private final LongSupplier nonces;
    private final Map<String, SecretKeySpec> derived = new ConcurrentHashMap<>();
    private final ThreadLocal<Cipher> ciphers = ThreadLocal.withInitial(PageSeals::newCipher);

    PageSeals(SealingKeys keys, byte[] salt, LongSupplier nonces) {
        this.keys = keys;
        this.salt = salt.clone();
        this.nonces = nonces;
    }

    /** The id new values are sealed with, checked to be one the keys have. */
    String currentKeyId() {
        String id = keys.currentKeyId();
        derive(id);
        return id;
    }

    /** Throws unless the keys have {@code keyId}. */
    void requireKey(String keyId) {
        derive(keyId);
    }

    /** {@code plain}, sealed as value {@code number} of kind {@code kind} (PAGE or META). */
    byte[] seal(byte kind, long number, byte[] plain) {
        String keyId = keys.currentKeyId();
        byte[] id = keyId.getBytes(StandardCharsets.UTF_8);
        SecretKeySpec key = derive(keyId);
        byte[] nonce = new byte[NONCE_BYTES];
        ByteBuffer.wrap(nonce, 4, 8).putLong(nonces.getAsLong());
        int header = 2 + id.length + NONCE_BYTES;
        try {
            Cipher cipher = ciphers.get();
            cipher.init(Cipher.ENCRYPT_MODE, key, new GCMParameterSpec(TAG_BITS, nonce));
            cipher.updateAAD(associated(kind, number, plain.length, id));
            byte[] sealed = new byte[header + cipher.getOutputSize(plain.length)];
            sealed[0] = VERSION;
            sealed[1] = (byte) id.length;
            System.arraycopy(id, 0, sealed, 2, id.length);
            System.arraycopy(nonce, 0, sealed, 2 + id.length, NONCE_BYTES);
            cipher.doFinal(plain, 0, plain.length, sealed, header);
            return sealed;
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("AES-GCM failed to seal: " + e, e);
        }
    }

    /**
     * The plain value of {@code sealed}, value {@code number} of kind {@code kind}.
     *
     * @throws Refused if it does not open: altered, moved, another store's, or not sealed
     */
    byte[] open(byte kind, long number, byte[] sealed) throws Refused {
        if (sealed.length < 2 || sealed[0] != VERSION) {
            throw new Refused("it is not a sealed value");
        }
        int idLength = sealed[1] & 0xff;
        int header = 2 + idLength + NONCE_BYTES;
        if (idLength == 0 || sealed.length < header + TAG_BITS / 8) {
            throw new Refused("its seal is cut short (" + sealed.length + " bytes)");
        }
        String keyId = new String(sealed, 2, idLength, StandardCharsets.UTF_8);
        SecretKeySpec key;
        try {
            key = derive(keyId);
        } catch (IllegalStateException e) {
            throw new Refused(e.getMessage());
        }
        int plainLength = sealed.length - header - TAG_BITS / 8;
        try {
            Cipher cipher = ciphers.get();
            cipher.init(Cipher.DECRYPT_MODE, key, new GCMParameterSpec(TAG_BITS, sealed, 2 + idLength, NONCE_BYTES));
            cipher.updateAAD(associated(kind, number, plainLength, java.util.Arrays.copyOfRange(sealed, 2, 2 + idLength)));
            return cipher.doFinal(sealed, header, sealed.length - header);
        } catch (javax.crypto.AEADBadTagException e) {
            throw new Refused("it does not authenticate under key '" + keyId + "': altered, moved from another "
                    + (kind == PAGE ? "page" : "meta slot") + " or store, or sealed with another key of that id");
        } catch (GeneralSecurityException e) {
            throw new Refused("it does not open under key '" + keyId + "': " + e);
        }
    }

    /** What the seal binds besides the value: the version, the store (through the key), kind, number, length, key id. */
    private static byte[] associated(byte kind, long number, int length, byte[] id) {
        return ByteBuffer.allocate(CONTEXT.length + 1 + 8 + 4 + id.length).put(CONTEXT).put(kind).putLong(number)
                .putInt(length).put(id).array();
    }

    /** This store's key for the application's key {@code keyId}. */
    private SecretKeySpec derive(String keyId) {
        SecretKeySpec known = derived.get(keyId);
        if (known != null) {
            return known;
        }
        SecretKey key = keys.key(keyId);
        if (key == null) {
            throw new IllegalStateException("the sealing keys have no key '" + keyId + "'");
        }
        byte[] bytes = key.getEncoded();
        if (bytes == null || (bytes.length != 16 && bytes.length != 24 && bytes.length != 32)) {
            throw new IllegalStateException("key '" + keyId + "' is not 128, 192 or 256 bits of AES key that can be read");
        }
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(bytes, "HmacSHA256"));
            mac.update(CONTEXT);
            SecretKeySpec storeKey = new SecretKeySpec(mac.doFinal(salt), "AES");
            derived.put(keyId, storeKey);
            return storeKey;
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("cannot derive the store's key from key '" + keyId + "': " + e, e);
        } finally {
            java.util.Arrays.fill(bytes, (byte) 0);
        }
    }

    private static Cipher newCipher() {
        try {
            return Cipher.getInstance("AES/GCM/NoPadding");
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("this JVM has no AES/GCM: " + e, e);
        }
    }

    /** A value that does not open, and why. */
    static final class Refused extends Exception {
        private static final long serialVersionUID = 1L;

        Refused(String why) {
            super(why, null, false, false);
        }
    }
}
