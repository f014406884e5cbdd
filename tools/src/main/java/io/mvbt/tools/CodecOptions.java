// SPDX-License-Identifier: Apache-2.0
package io.mvbt.tools;

import picocli.CommandLine.Option;

/** {@code --key-codec} and {@code --value-codec}: how keys and values are read from arguments and shown. */
final class CodecOptions {
    @Option(names = "--key-codec", paramLabel = "CODEC",
            description = "How keys are written on the command line and shown: ${COMPLETION-CANDIDATES}"
                    + " (default: ${DEFAULT-VALUE}; bytes are hex).")
    KeyCodec key = KeyCodec.BYTES;

    @Option(names = "--value-codec", paramLabel = "CODEC",
            description = "How values are shown: ${COMPLETION-CANDIDATES} (default: ${DEFAULT-VALUE}).")
    KeyCodec value = KeyCodec.BYTES;
}
