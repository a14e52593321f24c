package org.hsa4j.memory;

/**
 * The real-address SVM arena as a file another process can map at the same addresses: process
 * {@code pid}'s descriptor {@code fd} (open it as {@code /proc/<pid>/fd/<fd>}), whose offset 0 is
 * mapped at {@code address} for {@code bytes}. Chunks become usable as {@link SvmRegistrar#mapped}
 * reports them; the rest of the range is reserved with no access.
 */
public record SvmShare(long pid, int fd, long address, long bytes) {
    /** The path another process opens to map the arena. */
    public String path() {
        return "/proc/" + pid + "/fd/" + fd;
    }
}
