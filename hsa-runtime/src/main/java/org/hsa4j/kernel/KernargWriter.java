package org.hsa4j.kernel;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.hsa4j.agent.NativeKernel;

/**
 * Fills a dispatch's kernarg segment ({@link NativeKernel#kernargSegmentSize()} bytes, 16-byte aligned,
 * zeroed) with the kernel's parameters at their offsets: addresses are plain longs, so any address the
 * kernel's agent can reach may be passed.
 */
@FunctionalInterface
public interface KernargWriter {
    /** Writes the parameters into {@code kernarg}. */
    void write(MemorySegment kernarg);

    /** Parameters that are 8-byte slots in order (pointers, then counts): {@code longs}, then {@code ints}, each in a slot of 8. */
    static KernargWriter slots(long[] longs, int... ints) {
        long[] l = longs.clone();
        int[] i = ints.clone();
        return k -> {
            long at = 0;
            for (long v : l) {
                k.set(ValueLayout.JAVA_LONG, at, v);
                at += 8;
            }
            for (int v : i) {
                k.set(ValueLayout.JAVA_INT, at, v);
                at += 8;
            }
        };
    }
}
