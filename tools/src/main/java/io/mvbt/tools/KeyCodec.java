// SPDX-License-Identifier: Apache-2.0
package io.mvbt.tools;

import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.HexFormat;
import java.util.Locale;

import org.agrona.DirectBuffer;

import io.mvbt.revisions.Codec;
import io.mvbt.revisions.Codecs;

/**
 * How a command shows keys or values and reads them from its arguments ({@code --key-codec},
 * {@code --value-codec}): one of the library's {@link Codecs}, each with a text form. Bytes are
 * hex, as in the dump format.
 */
enum KeyCodec {
    BYTES(Codecs.BYTES),
    STRING(Codecs.STRING),
    LONG(Codecs.LONG),
    INT(Codecs.INT),
    UUID(Codecs.UUID),
    INSTANT(Codecs.INSTANT);

    private static final HexFormat HEX = HexFormat.of();

    private final Codec<?> codec;

    KeyCodec(Codec<?> codec) {
        this.codec = codec;
    }

    /** The bytes of {@code text} (hex, a string, a number, a UUID, an ISO-8601 instant); a usage error if it is not one. */
    byte[] parse(String text, String what) {
        try {
            return switch (this) {
                case BYTES -> HEX.parseHex(text);
                case STRING -> Codecs.STRING.encode(text);
                case LONG -> Codecs.LONG.encode(Long.parseLong(text));
                case INT -> Codecs.INT.encode(Integer.parseInt(text));
                case UUID -> Codecs.UUID.encode(java.util.UUID.fromString(text));
                case INSTANT -> Codecs.INSTANT.encode(Instant.parse(text));
            };
        } catch (IllegalArgumentException | DateTimeParseException e) {
            throw new CommandException(ExitCodes.USAGE, what + " '" + text + "' is not " + description() + " ("
                    + e.getMessage() + ")" + (this == BYTES ? "; --key-codec string takes text" : ""));
        }
    }

    /**
     * {@code length} bytes of {@code buffer} at {@code offset} decoded: a String (hex for bytes), a
     * Long or an Integer, ready for text or JSON. Bytes that are not one fail naming {@code what}.
     */
    Object decode(DirectBuffer buffer, int offset, int length, String what) {
        if (this == BYTES) {
            byte[] bytes = new byte[length];
            buffer.getBytes(offset, bytes);
            return HEX.formatHex(bytes);
        }
        Object value;
        try {
            value = codec.decode(buffer, offset, length);
        } catch (IllegalArgumentException | IndexOutOfBoundsException e) {
            throw new CommandException(ExitCodes.FAILED, what + " of " + Plural.of(length, "byte") + " is not "
                    + description() + " (" + e.getMessage() + "); --key-codec and --value-codec bytes show any bytes");
        }
        return value instanceof Long || value instanceof Integer || value instanceof String ? value : value.toString();
    }

    /** Decodes a whole buffer (a cursor's key or value). */
    Object decode(DirectBuffer buffer, String what) {
        return decode(buffer, 0, buffer.capacity(), what);
    }

    private String description() {
        return switch (this) {
            case BYTES -> "hex";
            case STRING -> "a string";
            case LONG -> "a long";
            case INT -> "an int";
            case UUID -> "a UUID";
            case INSTANT -> "an ISO-8601 instant";
        };
    }

    @Override
    public String toString() {
        return name().toLowerCase(Locale.ROOT);
    }
}
