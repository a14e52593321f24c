package org.hsa4j.services.syscall;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * The file descriptor table of one services instance (one per runtime): fds 0, 1 and 2 are the
 * standard streams, files opened by kernels get the lowest free fd from 3 up. Slots are taken and
 * freed with compare-and-swap, so handler threads open and close concurrently without a lock.
 */
public final class FdTable implements AutoCloseable {
    /** Most open descriptors, standard streams included. */
    public static final int MAX_FDS = 1024;

    /** What a descriptor refers to. */
    public sealed interface Entry permits FileEntry, StreamEntry {
    }

    /**
     * An open file.
     *
     * @param channel    the channel; its position is the file position
     * @param path       where the file was when it was opened (fstat reads its times there, links not followed)
     * @param accessMode {@link OpenFlags#O_RDONLY}, {@link OpenFlags#O_WRONLY} or {@link OpenFlags#O_RDWR}
     * @param append     true with {@link OpenFlags#O_APPEND}
     */
    public record FileEntry(FileChannel channel, Path path, int accessMode, boolean append) implements Entry {
        /** True when the file was opened for reading. */
        public boolean readable() {
            return accessMode != OpenFlags.O_WRONLY;
        }

        /** True when the file was opened for writing. */
        public boolean writable() {
            return accessMode != OpenFlags.O_RDONLY;
        }
    }

    /**
     * A standard stream.
     *
     * @param name   stdin, stdout or stderr
     * @param input  the stream read from, or null
     * @param output the stream written to, or null
     */
    public record StreamEntry(String name, InputStream input, OutputStream output) implements Entry {
    }

    private final AtomicReferenceArray<Entry> slots = new AtomicReferenceArray<>(MAX_FDS);

    /** A table whose fds 0, 1 and 2 are {@code in}, {@code out} and {@code err}. */
    public FdTable(InputStream in, OutputStream out, OutputStream err) {
        slots.set(0, new StreamEntry("stdin", in, null));
        slots.set(1, new StreamEntry("stdout", null, out));
        slots.set(2, new StreamEntry("stderr", null, err));
    }

    /** Installs {@code entry} at the lowest free fd; returns the fd, or {@code -EMFILE} when full. */
    public int install(Entry entry) {
        for (int fd = 0; fd < MAX_FDS; fd++) {
            if (slots.get(fd) == null && slots.compareAndSet(fd, null, entry)) {
                return fd;
            }
        }
        return -Errno.EMFILE;
    }

    /** The entry of {@code fd}, or null when it is not open. */
    public Entry get(long fd) {
        return fd >= 0 && fd < MAX_FDS ? slots.get((int) fd) : null;
    }

    /** Removes {@code fd}; returns what it referred to, or null when it was not open. */
    public Entry remove(long fd) {
        if (fd < 0 || fd >= MAX_FDS) {
            return null;
        }
        return slots.getAndSet((int) fd, null);
    }

    /** Number of open descriptors, standard streams included. */
    public int openCount() {
        int n = 0;
        for (int fd = 0; fd < MAX_FDS; fd++) {
            if (slots.get(fd) != null) {
                n++;
            }
        }
        return n;
    }

    /** Closes every open file (the standard streams stay open). */
    @Override
    public void close() {
        for (int fd = 0; fd < MAX_FDS; fd++) {
            Entry e = slots.getAndSet(fd, null);
            if (e instanceof FileEntry f) {
                try {
                    f.channel().close();
                } catch (IOException ignored) {
                    // closing at shutdown: nothing left to report to
                }
            }
        }
    }
}
