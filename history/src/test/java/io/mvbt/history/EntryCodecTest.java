// SPDX-License-Identifier: Apache-2.0
package io.mvbt.history;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

class EntryCodecTest {
    private static final byte[] HASH = MessageIdHash.of("<codec@test.invalid>");

    private static HistoryEntry roundTrip(HistoryEntry e) {
        byte[] v = EntryCodec.encode(e);
        assertTrue(v.length <= EntryCodec.MAX_BYTES);
        assertEquals(e.isArticle(), EntryCodec.isArticle(new UnsafeBuffer(v)));
        return EntryCodec.decode(e.hash(), new UnsafeBuffer(v));
    }

    @Test
    void everyCombinationOfKnownTimesRoundTrips() {
        StorageToken token = StorageToken.parse("@0102030405060708090A0B0C0D0E0F101112@");
        long[] times = {0, 1, 1_700_000_000L, 1_699_999_000L, 4_102_444_800L, Long.MAX_VALUE};
        for (long a : times) {
            for (long p : times) {
                for (long x : times) {
                    HistoryEntry article = HistoryEntry.article(HASH, a, p, x, token);
                    assertEquals(article, roundTrip(article));
                    HistoryEntry remembered = HistoryEntry.remembered(HASH, a, p);
                    assertEquals(remembered, roundTrip(remembered));
                }
            }
        }
        Random random = new Random(3);
        for (int i = 0; i < 10_000; i++) {
            HistoryEntry e = HistoryEntry.of(HASH, random.nextLong(), random.nextLong(), random.nextLong(),
                    random.nextBoolean() ? token : null);
            assertEquals(e, roundTrip(e));
        }
    }

    @Test
    void aTypicalArticleIsSmall() {
        StorageToken token = StorageToken.parse("@030100000000000000010000000000000000@");
        long arrived = 1_760_000_000L;
        assertEquals(1 + 5 + 2 + 3 + 18, EntryCodec.encode(arrived, arrived - 3_000, arrived + 864_000, token).length);
        assertEquals(1 + 5 + 2, EntryCodec.encode(arrived, arrived - 3_000, 0, null).length);
    }

    @Test
    void unknownTimesAreZeroAndRememberedEntriesHaveNoExpiry() {
        HistoryEntry e = HistoryEntry.of(HASH, -5, 0, 99, null);
        assertEquals(0, e.arrived());
        assertEquals(0, e.expires());
        assertTrue(e.isRemembered());
        assertFalse(roundTrip(e).isArticle());
    }

    @Test
    void damagedValuesAreRefusedNamingTheHash() {
        byte[][] damaged = {
            {},
            {(byte) 0x10},
            {EntryCodec.ARRIVED},
            {EntryCodec.ARRIVED, (byte) 0x80},
            {EntryCodec.EXPIRES},
            {EntryCodec.ARTICLE, 1, 2, 3},
            {0, 7},
        };
        for (byte[] v : damaged) {
            HistoryException e = assertThrows(HistoryException.class,
                    () -> EntryCodec.decode(HASH.clone(), new UnsafeBuffer(v)));
            assertTrue(e.getMessage().contains(MessageIdHash.toText(HASH)), e.getMessage());
        }
    }
}
