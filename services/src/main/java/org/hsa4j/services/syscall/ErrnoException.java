package org.hsa4j.services.syscall;

import java.io.IOException;

/** A file operation failed with {@link #errno()}; thrown inside the service, answered as {@code -errno}. */
final class ErrnoException extends IOException {
    private static final long serialVersionUID = 1L;

    private final int errno;

    ErrnoException(int errno, String message) {
        super(Errno.name(errno) + ": " + message);
        this.errno = errno;
    }

    /** The errno (positive). */
    int errno() {
        return errno;
    }
}
