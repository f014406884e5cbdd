// SPDX-License-Identifier: Apache-2.0
package io.mvbt.history;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

import org.junit.jupiter.api.Test;

/** The cases of INN's tests/lib/hash-t.c, and the canonicalisation rule spelled out. */
class MessageIdHashTest {
    private static boolean same(String a, String b) {
        return Arrays.equals(MessageIdHash.of(a), MessageIdHash.of(b));
    }

    private static String canonical(String id) {
        return new String(MessageIdHash.canonical(id.getBytes(StandardCharsets.US_ASCII)), StandardCharsets.US_ASCII);
    }

    @Test
    void domainIsCaseInsensitiveLocalPartIsNot() {
        assertTrue(same("<lhs@test.invalid>", "<lhs@TEST.invalid>"));
        assertTrue(same("<lhs@test.invalid>", "<lhs@test.INVALID>"));
        assertFalse(same("<lhs@test.invalid>", "<Lhs@test.invalid>"));
        assertFalse(same("<lhs@test.invalid>", "<lhS@test.invalid>"));
    }

    @Test
    void withoutAnAtEverythingIsCaseSensitive() {
        assertFalse(same("<test.invalid>", "<TEST.invalid>"));
        assertFalse(same("<test.invalid>", "<test.INVALID>"));
        assertEquals("<TEST.Invalid>", canonical("<TEST.Invalid>"));
    }

    @Test
    void postmasterLocalPartIsCaseInsensitive() {
        assertTrue(same("<postmaster@test.invalid>", "<POSTMASTER@test.invalid>"));
        assertTrue(same("<postmaster@test.invalid>", "<PostMaster@test.invalid>"));
        assertTrue(same("<postmaster@test.invalid>", "<postmasteR@test.invalid>"));
        assertTrue(same("<postmaster@test.invalid>", "<postmaster@TEST.invalid>"));
        assertTrue(same("<postmaster@test.invalid>", "<postmaster@test.INVALID>"));
        assertFalse(same("<postmaster.test.invalid>", "<POSTMASTER.test.invalid>"));
        // Only exactly "postmaster": a longer local part keeps its case.
        assertFalse(same("<postmasters@test.invalid>", "<POSTMASTERS@test.invalid>"));
        // INN skips the first character whatever it is, and lowercases from there.
        assertEquals("<postmaster@a.b>", canonical("<PostMaster@A.B>"));
        assertEquals("Xpostmaster@a.b", canonical("XPOSTMASTER@A.B"));
    }

    @Test
    void theSplitIsAtTheFirstAt() {
        assertEquals("<Ab@cd@ef>", canonical("<Ab@CD@EF>"));
        assertFalse(same("<a@b@c>", "<A@b@c>"));
    }

    @Test
    void knownHashFromInnsTests() {
        byte[] h = MessageIdHash.of("<87is2w1u6i.fsf@windlord.stanford.edu>");
        assertEquals("A0D432DC9718979BEFB4ACADA4BAD863", MessageIdHash.toText(h));
        assertArrayEquals(h, MessageIdHash.fromText("A0D432DC9718979BEFB4ACADA4BAD863"));
        assertArrayEquals(h, MessageIdHash.fromText("a0d432dc9718979befb4acada4bad863"));
        assertArrayEquals(h, MessageIdHash.of("<87is2w1u6i.fsf@WINDLORD.Stanford.EDU>"));
    }

    @Test
    void onlyAsciiLettersAreLowercased() {
        byte[] id = {'<', 'a', '@', (byte) 0xC4, 'B', '[', '>'};
        byte[] c = MessageIdHash.canonical(id);
        assertArrayEquals(new byte[] {'<', 'a', '@', (byte) 0xC4, 'b', '[', '>'}, c);
        assertEquals('B', id[4], "the caller's bytes are not changed");
    }

    @Test
    void misuseIsRefusedClearly() {
        assertThrows(IllegalArgumentException.class, () -> MessageIdHash.of((String) null));
        assertThrows(IllegalArgumentException.class, () -> MessageIdHash.of(""));
        assertThrows(IllegalArgumentException.class, () -> MessageIdHash.of("<a\0b@c>"));
        String longest = "<" + "x".repeat(MessageIdHash.MAX_MESSAGE_ID_BYTES - 6) + "@y.z>";
        assertEquals(MessageIdHash.MAX_MESSAGE_ID_BYTES, longest.length());
        MessageIdHash.of(longest);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> MessageIdHash.of("<x" + longest));
        assertTrue(e.getMessage().contains("252 bytes"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> MessageIdHash.fromText("A0D4"));
        assertThrows(IllegalArgumentException.class, () -> MessageIdHash.fromText("G0D432DC9718979BEFB4ACADA4BAD863"));
        assertThrows(IllegalArgumentException.class, () -> MessageIdHash.toText(new byte[15]));
    }
}
