// SPDX-License-Identifier: Apache-2.0
package io.mvbt;

/**
 * The store file is written by a process that reached it by another name (a hard link) or beside
 * another lock file: its writer and this store would not see each other. Open the store by one name.
 */
public class WriterByAnotherNameException extends StoreLockedException {
    private static final long serialVersionUID = 1L;

    public WriterByAnotherNameException(String message) {
        super(message);
    }
}
