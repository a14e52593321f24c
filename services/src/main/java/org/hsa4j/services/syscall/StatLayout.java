package org.hsa4j.services.syscall;

/** Layout of the {@code stat} record that {@code fstat} writes into SVM (a subset of {@code struct stat}). */
public final class StatLayout {
    /** u64 file size in bytes. */
    public static final long SIZE = 0;
    /** u32 mode: file type bits ({@link #S_IFREG}, {@link #S_IFDIR}, {@link #S_IFCHR}) and permission bits. */
    public static final long MODE = 8;
    /** u32 reserved. */
    public static final long RESERVED = 12;
    /** i64 last modification time, nanoseconds since the epoch. */
    public static final long MTIME_NANOS = 16;
    /** i64 last access time, nanoseconds since the epoch. */
    public static final long ATIME_NANOS = 24;
    /** i64 creation (status change) time, nanoseconds since the epoch. */
    public static final long CTIME_NANOS = 32;
    /** Size of the record. */
    public static final long BYTES = 40;

    /** Regular file. */
    public static final int S_IFREG = 0100000;
    /** Directory. */
    public static final int S_IFDIR = 0040000;
    /** Character device (the standard streams). */
    public static final int S_IFCHR = 0020000;

    private StatLayout() {
    }
}
