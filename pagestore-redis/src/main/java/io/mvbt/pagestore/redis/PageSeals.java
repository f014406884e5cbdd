// SPDX-License-Identifier: Apache-2.0
package io.mvbt.pagestore.redis;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.Map;
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
    /** Derived keys kept for opening values. */
    private static final int KEPT_KEYS = 256;
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
    /**
     * Keys that opened a value, by key id and session id, the most recently used kept: a store
     * holds values of many writer sessions, and a key is derived again (one HMAC) in microseconds
     * against a Redis round trip of hundreds. Only keys that opened a value are kept, so forged
     * values fill nothing.
     */
    private final Map<String, SecretKeySpec> derived = java.util.Collections.synchronizedMap(
            new java.util.LinkedHashMap<>(16, 0.75f, true) {
                private static final long serialVersionUID = 1L;

                @Override
                protected boolean removeEldestEntry(Map.Entry<String, SecretKeySpec> eldest) {
                    return size() > KEPT_KEYS;
                }
            });
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

    /** Throws {@link StorageException} unless the keys have {@code keyId} (read from Redis: shown escaped). */
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
     * @throws Refused if it does not open: altered, moved, another store's, not sealed, or sealed
     *         with a key the keys lack (whoever can write Redis can name any)
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
        if (keys.key(keyId) == null) {
            throw new Refused("it names a key the sealing keys lack, " + shown(keyId) + " (altered, or sealed with a"
                    + " key taken away too early)");
        }
        byte[] sessionId = java.util.Arrays.copyOfRange(sealed, 2 + idLength, 2 + idLength + SESSION_BYTES);
        String name = keyId + "/" + java.util.HexFormat.of().formatHex(sessionId);
        SecretKeySpec kept = derived.get(name);
        SecretKeySpec key = kept != null ? kept : derive(keyId, sessionId);
        int plainLength = sealed.length - header - TAG_BITS / 8;
        try {
            Cipher cipher = ciphers.get();
            cipher.init(Cipher.DECRYPT_MODE, key, new GCMParameterSpec(TAG_BITS, sealed, 2 + idLength + SESSION_BYTES,
                    NONCE_BYTES));
            cipher.updateAAD(associated(kind, number, plainLength, java.util.Arrays.copyOfRange(sealed, 2, 2 + idLength)));
            byte[] plain = cipher.doFinal(sealed, header, sealed.length - header);
            if (kept == null) {
                derived.put(name, key);
            }
            return plain;
        } catch (javax.crypto.AEADBadTagException e) {
            throw new Refused("it does not authenticate under key " + shown(keyId) + ": altered, moved from another "
                    + (kind == PAGE ? "page" : kind == META ? "meta slot" : "field") + " or store, or sealed with"
                    + " another key of that id");
        } catch (GeneralSecurityException e) {
            throw new Refused("it does not open under key " + shown(keyId) + ": " + e);
        }
    }

    /**
     * A key id read from Redis as a message may show it: quoted, printable ASCII as it is and
     * anything else escaped, at most 64 characters (whoever can write Redis chooses it).
     */
    private static String shown(String keyId) {
        StringBuilder b = new StringBuilder("'");
        for (int i = 0; i < keyId.length() && i < 64; i++) {
            char c = keyId.charAt(i);
            if (c >= 0x20 && c < 0x7f && c != '\\' && c != '\'') {
                b.append(c);
            } else {
                b.append(String.format("\\u%04x", (int) c));
            }
        }
        return b.append(keyId.length() > 64 ? "...'" : "'").toString();
    }

    /** What the seal binds besides the value: the version, the store's name, kind, number, length, key id. */
    private byte[] associated(byte kind, long number, int length, byte[] id) {
        return ByteBuffer.allocate(CONTEXT.length + store.length + 1 + 8 + 4 + id.length).put(CONTEXT).put(store)
                .put(kind).putLong(number).putInt(length).put(id).array();
    }

    /** Keys kept for opening values (for tests). */
    int cachedKeys() {
        return derived.size();
    }

    /**
     * The key of writer session {@code sessionId} of this store, from the application's key
     * {@code keyId}; not kept (see {@link #derived}).
     */
    private SecretKeySpec derive(String keyId, byte[] sessionId) {
        SecretKey key = keys.key(keyId);
        if (key == null) {
            throw new StorageException("the sealing keys have no key " + shown(keyId));
        }
        byte[] bytes = key.getEncoded();
        if (bytes == null || (bytes.length != 16 && bytes.length != 24 && bytes.length != 32)) {
            throw new StorageException("key " + shown(keyId) + " is not 128, 192 or 256 bits of AES key that can be read");
        }
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(bytes, "HmacSHA256"));
            mac.update(CONTEXT);
            mac.update(store);
            return new SecretKeySpec(mac.doFinal(sessionId), "AES");
        } catch (GeneralSecurityException e) {
            throw new StorageException("cannot derive a key from key " + shown(keyId) + ": " + e, e);
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
