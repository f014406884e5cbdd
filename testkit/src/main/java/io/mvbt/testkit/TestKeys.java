// SPDX-License-Identifier: Apache-2.0
package io.mvbt.testkit;

import java.nio.charset.StandardCharsets;

/** Keys the tests write: {@code key-000042}, ascending with their number up to a million. */
public final class TestKeys {
    private TestKeys() {
    }

    public static byte[] key(int i) {
        return String.format("key-%06d", i).getBytes(StandardCharsets.US_ASCII);
    }
}
