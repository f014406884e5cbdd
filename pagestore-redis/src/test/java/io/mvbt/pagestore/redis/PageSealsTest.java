// SPDX-License-Identifier: Apache-2.0
package io.mvbt.pagestore.redis;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;

import javax.crypto.spec.SecretKeySpec;

import org.junit.jupiter.api.Test;

/** What a forged sealed value can do to a reader: be refused, without filling its memory or its logs. */
class PageSealsTest {
    private static final SealingKeys KEYS = SealingKeys.of("k1", new SecretKeySpec(new byte[32], "AES"));

    /** A value naming a key id the keys lack is refused like any value that does not open, and its bytes are not echoed. */
    @Test
    void anUnknownKeyIdIsRefusedWithoutEchoingIt() {
        PageSeals seals = new PageSeals(KEYS, "s");
        byte[] sealed = seals.seal(PageSeals.PAGE, 7, new byte[4096]);
        sealed[2] = 0x1b; // "k1" becomes ESC '1': a terminal escape in a log
        PageSeals.Refused refused = assertThrows(PageSeals.Refused.class, () -> seals.open(PageSeals.PAGE, 7, sealed));
        assertFalse(refused.getMessage().indexOf(0x1b) >= 0, refused.getMessage());
        assertTrue(refused.getMessage().contains("lack"), refused.getMessage());
    }

    /** Forged values naming a real key id and made-up sessions derive keys that are not kept. */
    @Test
    void forgedSessionsDoNotFillTheKeyCache() throws Exception {
        PageSeals writer = new PageSeals(KEYS, "s");
        PageSeals reader = new PageSeals(KEYS, "s");
        byte[] plain = new byte[4096];
        plain[0] = 42;
        byte[] sealed = writer.seal(PageSeals.PAGE, 7, plain);
        assertArrayEquals(plain, reader.open(PageSeals.PAGE, 7, sealed));
        Random random = new Random(1);
        for (int i = 0; i < 10_000; i++) {
            byte[] forged = sealed.clone();
            for (int b = 0; b < 16; b++) {
                forged[2 + 2 + b] = (byte) random.nextInt(); // the session id, after the key id "k1"
            }
            assertThrows(PageSeals.Refused.class, () -> reader.open(PageSeals.PAGE, 7, forged));
        }
        assertTrue(reader.cachedKeys() <= 1, reader.cachedKeys() + " keys kept");
        assertArrayEquals(plain, reader.open(PageSeals.PAGE, 7, sealed));
    }
}
