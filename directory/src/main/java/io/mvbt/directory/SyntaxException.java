// SPDX-License-Identifier: Apache-2.0
package io.mvbt.directory;

/**
 * A DN or a search filter that does not parse. The message names the position (0-based character
 * index) and shows the input with a caret under it.
 */
public class SyntaxException extends DirectoryException {
    private static final long serialVersionUID = 1L;
    private final String input;
    private final int position;

    public SyntaxException(String what, String input, int position, String problem) {
        super("invalid " + what + " at position " + position + ": " + problem + "\n  " + input + "\n  "
                + " ".repeat(Math.max(0, position)) + "^");
        this.input = input;
        this.position = position;
    }

    public String input() {
        return input;
    }

    /** The 0-based index of the character where parsing failed (the input's length: at its end). */
    public int position() {
        return position;
    }
}
