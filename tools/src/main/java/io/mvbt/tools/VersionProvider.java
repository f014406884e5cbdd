// SPDX-License-Identifier: Apache-2.0
package io.mvbt.tools;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;

import picocli.CommandLine.IVersionProvider;

/** {@code mvbt --version}: the version the build wrote into mvbt-version.properties (Maven resource filtering). */
final class VersionProvider implements IVersionProvider {
    static final String RESOURCE = "/io/mvbt/tools/mvbt-version.properties";

    @Override
    public String[] getVersion() throws IOException {
        return new String[] {"mvbt " + version(), "Java " + Runtime.version() + " (" + System.getProperty("java.vm.name")
                + ")"};
    }

    /** The project's version, as the build knew it. */
    static String version() throws IOException {
        Properties p = new Properties();
        try (InputStream in = VersionProvider.class.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new IOException(RESOURCE + " is missing: this build of the tool is incomplete");
            }
            p.load(in);
        }
        return p.getProperty("version");
    }
}
