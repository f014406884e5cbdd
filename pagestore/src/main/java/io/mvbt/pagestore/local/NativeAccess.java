package io.mvbt.pagestore.local;

import java.nio.ByteOrder;

import org.agrona.concurrent.UnsafeBuffer;

import io.mvbt.MvbtException;

/**
 * Checks, once, that this JVM lets Agrona reach {@code jdk.internal.misc.Unsafe}. Without the flag
 * Agrona fails deep inside a class initializer with an {@link IllegalAccessError}; we fail first,
 * naming the flag.
 */
public final class NativeAccess {
    /** The JVM option that every process embedding mvbt on the class path must carry. */
    public static final String REQUIRED_FLAG = "--add-exports java.base/jdk.internal.misc=ALL-UNNAMED";

    private static volatile boolean checked;

    private NativeAccess() {
    }

    /** Throws {@link MvbtException} naming the missing JVM flag, or an unsupported byte order. */
    public static void require() {
        if (checked) {
            return;
        }
        Module agrona = UnsafeBuffer.class.getModule();
        if (!Object.class.getModule().isExported("jdk.internal.misc", agrona)) {
            // On the module path Agrona is the module org.agrona, and the export names it.
            String flag = agrona.isNamed() ? "--add-exports java.base/jdk.internal.misc=" + agrona.getName()
                    : REQUIRED_FLAG;
            throw new MvbtException("mvbt needs the JVM option '" + flag
                    + "' (Agrona reads page memory through jdk.internal.misc.Unsafe); add it to the java command line"
                    + " or to the Add-Exports attribute of your jar's manifest");
        }
        if (ByteOrder.nativeOrder() != ByteOrder.LITTLE_ENDIAN) {
            throw new MvbtException("mvbt's page format is little-endian and is only supported on little-endian CPUs");
        }
        checked = true;
    }
}
