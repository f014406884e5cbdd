// SPDX-License-Identifier: Apache-2.0
package io.mvbt.cursor;

import java.util.Arrays;

/** A key and its value, copied out of the store. */
public record KeyValue(byte[] key, byte[] value) {
    @Override
    public boolean equals(Object o) {
        return o instanceof KeyValue kv && Arrays.equals(key, kv.key) && Arrays.equals(value, kv.value);
    }

    @Override
    public int hashCode() {
        return 31 * Arrays.hashCode(key) + Arrays.hashCode(value);
    }

    @Override
    public String toString() {
        return "KeyValue[" + Arrays.toString(key) + " -> " + value.length + " bytes]";
    }
}
