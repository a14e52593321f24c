package org.hsa4j.memory;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

/**
 * The other process of {@link SharedRealArenaTest}: opens the parent's SVM memfd, maps all of it at
 * the parent's address ({@code MAP_FIXED_NOREPLACE}), makes one chunk readable and writable, prints
 * the long at the address it was given, then stores that value plus one 8 bytes further on.
 *
 * <p>Arguments: path, mapping address (hex), mapping bytes, chunk address (hex), chunk bytes, address to read (hex).
 */
public final class SharedArenaReader {
    private SharedArenaReader() {
    }

    public static void main(String[] args) throws Throwable {
        Linker linker = Linker.nativeLinker();
        var libc = linker.defaultLookup();
        MethodHandle open = linker.downcallHandle(libc.findOrThrow("open"), FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT));
        MethodHandle mmap = linker.downcallHandle(libc.findOrThrow("mmap"), FunctionDescriptor.of(ADDRESS, ADDRESS,
                JAVA_LONG, JAVA_INT, JAVA_INT, JAVA_INT, JAVA_LONG));
        MethodHandle mprotect = linker.downcallHandle(libc.findOrThrow("mprotect"),
                FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT));
        long address = Long.parseUnsignedLong(args[1], 16);
        long bytes = Long.parseLong(args[2]);
        long chunk = Long.parseUnsignedLong(args[3], 16);
        long chunkBytes = Long.parseLong(args[4]);
        long read = Long.parseUnsignedLong(args[5], 16);
        try (Arena a = Arena.ofConfined()) {
            int fd = (int) open.invokeExact(a.allocateFrom(args[0]), 2 /* O_RDWR */);
            if (fd < 0) {
                System.out.println("cannot open " + args[0]);
                System.exit(1);
            }
            // MAP_SHARED | MAP_NORESERVE | MAP_FIXED_NOREPLACE, no access yet
            MemorySegment p = (MemorySegment) mmap.invokeExact(MemorySegment.ofAddress(address), bytes, 0,
                    0x01 | 0x4000 | 0x100000, fd, 0L);
            if (p.address() != address) {
                System.out.println("mapped at 0x" + Long.toHexString(p.address()) + ", not 0x" + Long.toHexString(address));
                System.exit(1);
            }
            int rc = (int) mprotect.invokeExact(MemorySegment.ofAddress(chunk), chunkBytes, 3);
            if (rc != 0) {
                System.out.println("mprotect failed");
                System.exit(1);
            }
        }
        MemorySegment s = MemorySegment.ofAddress(read).reinterpret(16);
        long v = s.get(JAVA_LONG, 0);
        s.set(JAVA_LONG, 8, v + 1);
        System.out.println("read " + v);
        System.exit(0);
    }
}
