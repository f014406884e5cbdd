// SPDX-License-Identifier: Apache-2.0
package io.mvbt.pagestore.redis;

import java.util.Objects;

import javax.crypto.SecretKey;

/**
 * The AES keys a store on Redis seals its pages and meta with ({@link RedisStoreOptions#sealWith}),
 * supplied by the application: from a key management service, a key store, an environment
 * variable. Each key has an id; a sealed value records the id of the key that sealed it (never the
 * key), so keys can be rotated: new values are sealed with the current key, and every key whose
 * values may still be in Redis must stay available by its id.
 */
public interface SealingKeys {
    /** The id of the key that seals from now on (at most 255 bytes of UTF-8). */
    String currentKeyId();

    /**
     * The key named {@code keyId}, 128, 192 or 256 bits of AES key whose bytes can be read
     * ({@link SecretKey#getEncoded()}): each store seals with a key derived from it. Null if there
     * is no such key.
     */
    SecretKey key(String keyId);

    /** One key, named {@code keyId}; a store checks the id (1 to 255 bytes of UTF-8) when it opens. */
    static SealingKeys of(String keyId, SecretKey key) {
        Objects.requireNonNull(keyId);
        Objects.requireNonNull(key);
        return new SealingKeys() {
            @Override
            public String currentKeyId() {
                return keyId;
            }

            @Override
            public SecretKey key(String id) {
                return keyId.equals(id) ? key : null;
            }
        };
    }
}
