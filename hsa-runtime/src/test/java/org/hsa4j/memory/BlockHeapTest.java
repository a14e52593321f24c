package org.hsa4j.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The heap behind the pools: size classes, block alignment, recycling and chunk use. */
@Timeout(value = 30, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class BlockHeapTest {
    private final BlockHeap heap = new BlockHeap();

    @AfterEach
    void close() {
        heap.close();
    }

    @Test
    void shouldServeSizeAndAlignmentWithThePowerOfTwoClassThatHoldsBoth() {
        assertEquals(0, BlockHeap.sizeClass(1, 64));
        assertEquals(0, BlockHeap.sizeClass(64, 8));
        assertEquals(1, BlockHeap.sizeClass(65, 64));
        assertEquals(6, BlockHeap.sizeClass(64, 4096));
        assertEquals(BlockHeap.MAX_SMALL_SHIFT - BlockHeap.MIN_SHIFT, BlockHeap.sizeClass(1L << 20, 64));
        assertEquals(-1, BlockHeap.sizeClass((1L << 20) + 1, 64));
        assertEquals(-1, BlockHeap.sizeClass(64, 8192));
        assertEquals(4096, BlockHeap.blockSize(6));
    }

    @Test
    void shouldAlignEveryBlockToItsSizeUpTo4KiB() {
        Random random = new Random(7);
        for (int i = 0; i < 2000; i++) {
            int sizeClass = random.nextInt(BlockHeap.MAX_SMALL_SHIFT - BlockHeap.MIN_SHIFT + 1);
            MemorySegment block = heap.allocateBlock(sizeClass);
            long size = BlockHeap.blockSize(sizeClass);
            assertEquals(size, block.byteSize());
            assertEquals(0, block.address() % Math.min(size, BlockHeap.CHUNK_ALIGNMENT), "block of " + size);
        }
    }

    @Test
    void shouldHandOutTheBytesSkippedForAlignmentAsSmallerBlocks() {
        MemorySegment first = heap.allocateBlock(0);
        MemorySegment aligned = heap.allocateBlock(5);
        assertEquals(first.address() + 2048, aligned.address());
        for (int sizeClass = 4; sizeClass >= 0; sizeClass--) {
            MemorySegment gap = heap.allocateBlock(sizeClass);
            assertTrue(gap.address() > first.address() && gap.address() < aligned.address(),
                    "class " + sizeClass + " block should come from the gap");
        }
        assertEquals(BlockHeap.CHUNK_SIZE, heap.reservedBytes());
    }

    @Test
    void shouldUseTheTailOfAFullChunkForSmallerBlocks() {
        int megabyte = BlockHeap.MAX_SMALL_SHIFT - BlockHeap.MIN_SHIFT;
        heap.allocateBlock(0);
        for (int i = 0; i < 3; i++) {
            heap.allocateBlock(megabyte);
        }
        assertEquals(BlockHeap.CHUNK_SIZE, heap.reservedBytes());
        heap.allocateBlock(megabyte);
        assertEquals(2 * BlockHeap.CHUNK_SIZE, heap.reservedBytes());
        int quarterMegabyte = megabyte - 2;
        for (int i = 0; i < 13; i++) {
            heap.allocateBlock(quarterMegabyte);
        }
        assertEquals(2 * BlockHeap.CHUNK_SIZE, heap.reservedBytes(), "one of the 13 comes from the first chunk's tail");
    }

    @Test
    void shouldRecycleAReleasedBlockBeforeCarvingANewOne() {
        MemorySegment a = heap.allocateBlock(2);
        heap.releaseBlock(2, a);
        assertSame(a, heap.allocateBlock(2));
    }

    @Test
    void shouldNeverHandOutOverlappingBlocks() {
        Random random = new Random(11);
        List<MemorySegment> live = new ArrayList<>();
        List<Integer> classes = new ArrayList<>();
        for (int i = 0; i < 3000; i++) {
            if (!live.isEmpty() && random.nextInt(3) == 0) {
                int k = random.nextInt(live.size());
                heap.releaseBlock(classes.remove(k), live.remove(k));
            } else {
                int c = random.nextInt(8);
                live.add(heap.allocateBlock(c));
                classes.add(c);
            }
        }
        live.sort((x, y) -> Long.compare(x.address(), y.address()));
        for (int i = 1; i < live.size(); i++) {
            MemorySegment prev = live.get(i - 1);
            assertTrue(prev.address() + prev.byteSize() <= live.get(i).address(), "blocks overlap");
        }
    }

    @Test
    void shouldCountDedicatedBytesUntilTheyAreRemoved() {
        heap.addDedicated(3L << 20);
        assertEquals(3L << 20, heap.reservedBytes());
        heap.removeDedicated(3L << 20);
        assertEquals(0, heap.reservedBytes());
    }
}
