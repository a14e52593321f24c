package org.hsa4j.services.syscall;

/** Flags of {@code open} and whence values of {@code lseek} (Linux values); clock ids are in {@link Clocks}. */
public final class OpenFlags {
    /** Open for reading only. */
    public static final int O_RDONLY = 0;
    /** Open for writing only. */
    public static final int O_WRONLY = 1;
    /** Open for reading and writing. */
    public static final int O_RDWR = 2;
    /** Mask of the access mode. */
    public static final int O_ACCMODE = 3;
    /** Create the file if it does not exist. */
    public static final int O_CREAT = 0100;
    /** With O_CREAT: fail with EEXIST if the file exists. */
    public static final int O_EXCL = 0200;
    /** Truncate the file to length 0. */
    public static final int O_TRUNC = 01000;
    /** Every write appends. */
    public static final int O_APPEND = 02000;

    /** lseek: offset from the start. */
    public static final int SEEK_SET = 0;
    /** lseek: offset from the current position. */
    public static final int SEEK_CUR = 1;
    /** lseek: offset from the end. */
    public static final int SEEK_END = 2;

    private OpenFlags() {
    }
}
