// SPDX-License-Identifier: Apache-2.0
package io.mvbt.pagestore.local;

import java.nio.ByteOrder;

import io.mvbt.MvbtException;

/**
 * Checks, once, that this JVM gives mvbt what it reads page memory with: {@code sun.misc.Unsafe}
 * (module {@code jdk.unsupported}, in every JDK and in a jlink image that adds it; no JVM flag), and
 * a little-endian CPU. Without the module Agrona fails deep inside a class initializer; we fail
 * first, naming it.
 */
public final class NativeAccess {
    private static volatile boolean checked;

    private NativeAccess() {
    }

    /** Throws {@link MvbtException} naming what is missing. */
    public static void require() {
        if (checked) {
            return;
        }
        try {
            Class.forName("sun.misc.Unsafe");
        } catch (ClassNotFoundException e) {
            throw new MvbtException("mvbt needs the module jdk.unsupported (sun.misc.Unsafe reads page memory); "
                    + "add it to the runtime image (jlink --add-modules jdk.unsupported)", e);
        }
        if (ByteOrder.nativeOrder() != ByteOrder.LITTLE_ENDIAN) {
            throw new MvbtException("mvbt's page format is little-endian and is only supported on little-endian CPUs");
        }
        checked = true;
    }
}
