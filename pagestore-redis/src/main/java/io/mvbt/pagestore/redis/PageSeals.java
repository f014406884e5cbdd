// SPDX-License-Identifier: Apache-2.0
package io.mvbt.pagestore.redis;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

import javax.crypto.Cipher;
import javax.crypto.Mac;
import javax.crypto.SecretKey;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;

import io.mvbt.StorageException;

/**
 * Seals the values a store sends to Redis (pages, meta slots and the meta's head) with AES-GCM,
 * and opens them: whoever reads Redis sees ciphertext, and a value altered, moved to another page
 * number or slot, or taken from another store does not open. The layout is in docs/format.md
 * ("Sealed values on Redis"): a version byte, the key id, the writer's session id, a 12-byte nonce,
 * the ciphertext and its 16-byte tag.
 *
 * <p>Each writer session seals with a key of its own, derived (HMAC-SHA256) from the application's
 * key, the store's name and a random 128-bit session id, and counts its nonces from zero in
 * memory. So no nonce repeats under one key, and that rests on nothing Redis holds: a meta hash
 * rolled back, a counter reset by whoever can write to Redis, or a write lost in a failover cannot
 * make a writer reuse one. The store's name is in every value's associated data as well, and
 * nothing read from Redis takes part in deriving a key: a value of another store, or one made to
 * look like it, never opens as this store's.
 */
final class PageSeals {
    /** What a value is, bound into its seal. */
    static final byte PAGE = 'P';
    static final byte META = 'M';
    /** The meta hash's field head ({@link MetaHead}). */
    static final byte HEAD = 'H';
    private static final byte VERSION = 'T';
    /** Version 1, of development builds, whose seals did not name the store. */
    private static final byte VERSION_1 = 'S';
    private static final int SESSION_BYTES = 16;
    private static final int NONCE_BYTES = 12;
    private static final int TAG_BITS = 128;
    private static final byte[] CONTEXT = "mvbt seal 2".getBytes(StandardCharsets.US_ASCII);

    private final SealingKeys keys;
    /** The store's name as the seals bind it: its length (16-bit) and UTF-8 bytes. */
    private final byte[] store;
    /** This writer session's id, fresh at every open. */
    private final byte[] session = new byte[SESSION_BYTES];
    /** The next nonce of this session. */
    private final AtomicLong nonces = new AtomicLong();
    /** The key this session sealed with last, by id: no derivation or lookup for the next seal. */
    private volatile SealingKey sealing;
    /** Keys derived, by key id and session id. */
    private final Map<String, SecretKeySpec> derived = new ConcurrentHashMap<>();
    private final ThreadLocal<Cipher> ciphers = ThreadLocal.withInitial(PageSeals::newCipher);

    PageSeals(SealingKeys keys, String storeName) {
        this.keys = keys;
        byte[] name = storeName.getBytes(StandardCharsets.UTF_8);
        this.store = ByteBuffer.allocate(2 + name.length).putShort((short) name.length).put(name).array();
        new SecureRandom().nextBytes(session);
    }

    /**
     * The id new values are sealed with, checked to be 1 to 255 bytes of UTF-8 that the keys have.
     *
     * @throws StorageException if not
     */
    String currentKeyId() {
        String id = keys.currentKeyId();
        keyIdBytes(id);
        derive(id, session);
        return id;
    }

    /** Throws {@link StorageException} unless the keys have {@code keyId}. */
    void requireKey(String keyId) {
        derive(keyId, session);
    }

    /**
     * {@code plain}, sealed as value {@code number} of kind {@code kind} (PAGE or META).
     *
     * @throws StorageException if the keys lack the current key, or its id is not 1 to 255 bytes
     */
    byte[] seal(byte kind, long number, byte[] plain) {
        String keyId = keys.currentKeyId();
        byte[] id = keyIdBytes(keyId);
        SealingKey last = sealing;
        SecretKeySpec key;
        if (last != null && last.id.equals(keyId)) {
            key = last.key;
        } else {
            key = derive(keyId, session);
            sealing = new SealingKey(keyId, key);
        }
        byte[] nonce = new byte[NONCE_BYTES];
        ByteBuffer.wrap(nonce, 4, 8).putLong(nonces.getAndIncrement());
        int header = 2 + id.length + SESSION_BYTES + NONCE_BYTES;
        try {
            Cipher cipher = ciphers.get();
            cipher.init(Cipher.ENCRYPT_MODE, key, new GCMParameterSpec(TAG_BITS, nonce));
            cipher.updateAAD(associated(kind, number, plain.length, id));
            byte[] sealed = new byte[header + cipher.getOutputSize(plain.length)];
            sealed[0] = VERSION;
            sealed[1] = (byte) id.length;
            System.arraycopy(id, 0, sealed, 2, id.length);
            System.arraycopy(session, 0, sealed, 2 + id.length, SESSION_BYTES);
            System.arraycopy(nonce, 0, sealed, 2 + id.length + SESSION_BYTES, NONCE_BYTES);
            cipher.doFinal(plain, 0, plain.length, sealed, header);
            return sealed;
        } catch (GeneralSecurityException e) {
            throw new StorageException("AES-GCM failed to seal: " + e, e);
        }
    }

    private static byte[] keyIdBytes(String keyId) {
        byte[] id = keyId == null ? new byte[0] : keyId.getBytes(StandardCharsets.UTF_8);
        if (id.length < 1 || id.length > 255) {
            throw new StorageException("a sealing key id must be 1 to 255 bytes of UTF-8, not '" + keyId + "'");
        }
        return id;
    }

    /**
     * The plain value of {@code sealed}, value {@code number} of kind {@code kind}.
     *
     * @throws Refused if it does not open: altered, moved, another store's, or not sealed
     * @throws StorageException if the keys lack the key it names
     */
    byte[] open(byte kind, long number, byte[] sealed) throws Refused {
        if (sealed.length > 0 && sealed[0] == VERSION_1) {
            throw new Refused("it was sealed by a development build whose seals did not name the store (version 1):"
                    + " copy the store with that build into an unsealed one first");
        }
        if (sealed.length < 2 || sealed[0] != VERSION) {
            throw new Refused("it is not a sealed value");
        }
        int idLength = sealed[1] & 0xff;
        int header = 2 + idLength + SESSION_BYTES + NONCE_BYTES;
        if (idLength == 0 || sealed.length < header + TAG_BITS / 8) {
            throw new Refused("its seal is cut short (" + sealed.length + " bytes)");
        }
        String keyId = new String(sealed, 2, idLength, StandardCharsets.UTF_8);
        SecretKeySpec key = derive(keyId, java.util.Arrays.copyOfRange(sealed, 2 + idLength, 2 + idLength + SESSION_BYTES));
        int plainLength = sealed.length - header - TAG_BITS / 8;
        try {
            Cipher cipher = ciphers.get();
            cipher.init(Cipher.DECRYPT_MODE, key, new GCMParameterSpec(TAG_BITS, sealed, 2 + idLength + SESSION_BYTES,
                    NONCE_BYTES));
            cipher.updateAAD(associated(kind, number, plainLength, java.util.Arrays.copyOfRange(sealed, 2, 2 + idLength)));
            return cipher.doFinal(sealed, header, sealed.length - header);
        } catch (javax.crypto.AEADBadTagException e) {
            throw new Refused("it does not authenticate under key '" + keyId + "': altered, moved from another "
                    + (kind == PAGE ? "page" : kind == META ? "meta slot" : "field") + " or store, or sealed with"
                    + " another key of that id");
        } catch (GeneralSecurityException e) {
            throw new Refused("it does not open under key '" + keyId + "': " + e);
        }
    }

    /** What the seal binds besides the value: the version, the store's name, kind, number, length, key id. */
    private byte[] associated(byte kind, long number, int length, byte[] id) {
        return ByteBuffer.allocate(CONTEXT.length + store.length + 1 + 8 + 4 + id.length).put(CONTEXT).put(store)
                .put(kind).putLong(number).putInt(length).put(id).array();
    }

    /** The key of writer session {@code sessionId} of this store, from the application's key {@code keyId}. */
    private SecretKeySpec derive(String keyId, byte[] sessionId) {
        String name = keyId + "/" + java.util.HexFormat.of().formatHex(sessionId);
        SecretKeySpec known = derived.get(name);
        if (known != null) {
            return known;
        }
        SecretKey key = keys.key(keyId);
        if (key == null) {
            throw new StorageException("the sealing keys have no key '" + keyId + "'");
        }
        byte[] bytes = key.getEncoded();
        if (bytes == null || (bytes.length != 16 && bytes.length != 24 && bytes.length != 32)) {
            throw new StorageException("key '" + keyId + "' is not 128, 192 or 256 bits of AES key that can be read");
        }
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(bytes, "HmacSHA256"));
            mac.update(CONTEXT);
            mac.update(store);
            SecretKeySpec sessionKey = new SecretKeySpec(mac.doFinal(sessionId), "AES");
            derived.put(name, sessionKey);
            return sessionKey;
        } catch (GeneralSecurityException e) {
            throw new StorageException("cannot derive a key from key '" + keyId + "': " + e, e);
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

    private record SealingKey(String id, SecretKeySpec key) {
    }

    /** A value that does not open, and why. */
    static final class Refused extends Exception {
        private static final long serialVersionUID = 1L;

        Refused(String why) {
            super(why, null, false, false);
        }
    }
}
