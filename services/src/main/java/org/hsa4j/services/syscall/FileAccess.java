package org.hsa4j.services.syscall;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;

/**
 * How open and unlink reach the file system, chosen once per policy from its {@link FileRoots}:
 * {@link UnconfinedAccess} for {@link FileRoots#UNSANDBOXED}, {@link BeneathAccess} for roots,
 * {@link #REFUSED} when there are none or the platform cannot confine. Failures are thrown as
 * {@link ErrnoException} or the file system's own exceptions.
 */
interface FileAccess {
    /**
     * An opened file.
     *
     * @param channel the channel
     * @param path    where the file was when it was opened (fstat reads its times there, not following links)
     */
    record Opened(FileChannel channel, Path path) {
    }

    /** Opens {@code path} with {@link OpenFlags} {@code flags}; {@code mode} applies when it creates the file. */
    Opened open(String path, int flags, int mode) throws IOException;

    /** Removes {@code path} (a link itself, never its target). */
    void unlink(String path) throws IOException;

    /** Refuses every path with EPERM. */
    FileAccess REFUSED = new FileAccess() {
        @Override
        public Opened open(String path, int flags, int mode) throws IOException {
            throw new ErrnoException(Errno.EPERM, "no file roots: " + path);
        }

        @Override
        public void unlink(String path) throws IOException {
            throw new ErrnoException(Errno.EPERM, "no file roots: " + path);
        }
    };

    /** The access for {@code roots}. */
    static FileAccess of(FileRoots named) {
        FileRoots roots = named.resolved();
        if (roots.unsandboxed()) {
            return UnconfinedAccess.INSTANCE;
        }
        if (roots.roots().isEmpty() || !Posix.AVAILABLE) {
            return REFUSED;
        }
        return new BeneathAccess(roots);
    }
}
