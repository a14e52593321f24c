package org.hsa4j.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import org.hsa4j.packet.AqlPacket;
import org.hsa4j.packet.FenceScope;
import org.hsa4j.packet.KernelDispatchPacket;
import org.hsa4j.packet.PacketHeader;
import org.hsa4j.packet.PacketType;
import org.hsa4j.status.HsaException;
import org.hsa4j.status.HsaStatus;
import org.junit.jupiter.api.Test;

/** AQL kernel dispatch packets to CUDA launches, and their validation statuses, without a GPU. */
class PacketTranslationTest {
    private static final long OBJECT = 0xC0DA_0000_0000_0007L;
    private static final PacketTranslation.Limits H100 = PacketTranslation.Limits.of(CudaPlatformTest.h100());
    private final Arena arena = Arena.ofAuto();
    private final MemorySegment ring = arena.allocate(AqlPacket.SIZE, AqlPacket.ALIGNMENT);
    private final KernelDispatchPacket packet = new KernelDispatchPacket().wrap(ring, 0);
    private final CudaKernel vectorAdd = new CudaKernel(null, "hsa4j_vector_add",
            KernargLayout.of(new long[] {8, 8, 8, 4}, new long[] {8, 8, 8, 4}), 0, 1024);

    private int write(int dims, int wgX, int wgY, int wgZ, int gridX, int gridY, int gridZ) {
        packet.clearBody();
        packet.workgroupSize(wgX, wgY, wgZ).gridSize(gridX, gridY, gridZ).kernelObject(OBJECT).kernargAddress(0x1000);
        short header = PacketHeader.of(PacketType.KERNEL_DISPATCH, false, FenceScope.SYSTEM, FenceScope.SYSTEM);
        packet.publish(header, dims);
        return AqlPacket.loadHeaderWordAcquire(ring, 0);
    }

    private PacketTranslation.Launch translate(int word) {
        return PacketTranslation.translate(ring, 0, word, H100, h -> h == OBJECT ? vectorAdd : null);
    }

    private HsaException rejected(int word) {
        return assertThrows(HsaException.class, () -> translate(word));
    }

    @Test
    void aGridOfWholeWorkgroupsIsThatManyBlocks() {
        PacketTranslation.Launch l = translate(write(1, 256, 1, 1, 1 << 20, 1, 1));
        assertEquals(4096, l.blocksX());
        assertEquals(256, l.threadsX());
        assertEquals(1, l.blocksY());
        assertSame(vectorAdd, l.kernel());
    }

    @Test
    void aPartialLastWorkgroupAddsOneBlockPerDimension() {
        PacketTranslation.Launch l = translate(write(2, 16, 16, 1, 1000, 33, 1));
        assertEquals(63, l.blocksX());
        assertEquals(3, l.blocksY());
        assertEquals(16, l.threadsY());
    }

    @Test
    void theKernargSegmentIsTheKernelsParameterBytesAtThePacketsAddress() {
        PacketTranslation.Launch l = translate(write(1, 64, 1, 1, 64, 1, 1));
        assertEquals(0x1000, l.kernargAddress());
        assertEquals(28, l.kernargBytes());
    }

    @Test
    void theGroupSegmentBeyondTheKernelsStaticSharedMemoryIsDynamicShared() {
        CudaKernel withShared = new CudaKernel(null, "k", KernargLayout.EMPTY, 1024, 1024);
        write(1, 64, 1, 1, 64, 1, 1);
        packet.groupSegmentSize(4096);
        int word = AqlPacket.loadHeaderWordAcquire(ring, 0);
        PacketTranslation.Launch l = PacketTranslation.translate(ring, 0, word, H100, h -> withShared);
        assertEquals(3072, l.dynamicShared());
    }

    @Test
    void zeroDimensionsAreAnInvalidPacketFormat() {
        HsaException e = rejected(write(0, 1, 1, 1, 1, 1, 1));
        assertEquals(HsaStatus.INVALID_PACKET_FORMAT, e.status());
        assertTrue(e.getMessage().contains("0 dimensions"), e.getMessage());
    }

    @Test
    void anUnusedDimensionOtherThanOneIsRejected() {
        HsaException e = rejected(write(1, 64, 2, 1, 64, 1, 1));
        assertTrue(e.getMessage().contains("must be 1 in a 1-dimensional dispatch"), e.getMessage());
    }

    @Test
    void aWorkgroupLargerThanABlockIsRejected() {
        HsaException e = rejected(write(2, 64, 32, 1, 64, 32, 1));
        assertEquals(HsaStatus.INVALID_PACKET_FORMAT, e.status());
        assertTrue(e.getMessage().contains("2048 work-items exceeds the agent's maximum 1024"), e.getMessage());
    }

    @Test
    void aWorkgroupDimensionPastTheBlockLimitIsRejected() {
        HsaException e = rejected(write(3, 1, 1, 128, 1, 1, 128));
        assertTrue(e.getMessage().contains("workgroup_size_z 128 is outside 1..64"), e.getMessage());
    }

    @Test
    void aGridNeedingMoreBlocksThanTheDeviceHasIsRejected() {
        HsaException e = rejected(write(2, 1, 1, 1, 1, 70000, 1));
        assertTrue(e.getMessage().contains("more than 65535"), e.getMessage());
    }

    @Test
    void aZeroGridIsRejected() {
        HsaException e = rejected(write(1, 64, 1, 1, 0, 1, 1));
        assertTrue(e.getMessage().contains("grid_size_x is 0"), e.getMessage());
    }

    @Test
    void anUnknownKernelObjectIsRejected() {
        int word = write(1, 64, 1, 1, 64, 1, 1);
        HsaException e = assertThrows(HsaException.class,
                () -> PacketTranslation.translate(ring, 0, word, H100, h -> null));
        assertTrue(e.getMessage().contains("unknown kernel object 0xc0da000000000007"), e.getMessage());
    }

    @Test
    void aWorkgroupPastTheKernelsOwnLimitIsRejected() {
        CudaKernel heavy = new CudaKernel(null, "heavy", KernargLayout.EMPTY, 0, 512);
        int word = write(1, 1024, 1, 1, 1024, 1, 1);
        HsaException e = assertThrows(HsaException.class,
                () -> PacketTranslation.translate(ring, 0, word, H100, h -> heavy));
        assertTrue(e.getMessage().contains("exceeds kernel heavy's maximum 512"), e.getMessage());
    }

    @Test
    void aMissingKernargSegmentIsRejected() {
        write(1, 64, 1, 1, 64, 1, 1);
        packet.kernargAddress(0);
        HsaException e = rejected(AqlPacket.loadHeaderWordAcquire(ring, 0));
        assertTrue(e.getMessage().contains("kernarg_address is 0"), e.getMessage());
    }

    @Test
    void aMisalignedKernargSegmentIsRejected() {
        write(1, 64, 1, 1, 64, 1, 1);
        packet.kernargAddress(0x1008);
        HsaException e = rejected(AqlPacket.loadHeaderWordAcquire(ring, 0));
        assertTrue(e.getMessage().contains("not 16-byte aligned"), e.getMessage());
    }

    @Test
    void aGroupSegmentPastTheOptInSharedMemoryIsRejected() {
        write(1, 64, 1, 1, 64, 1, 1);
        packet.groupSegmentSize(227 * 1024 + 1);
        HsaException e = rejected(AqlPacket.loadHeaderWordAcquire(ring, 0));
        assertTrue(e.getMessage().contains("group segment of 232449 bytes exceeds"), e.getMessage());
    }

    @Test
    void aGroupSegmentPast48KiBUpToTheOptInSizeIsDynamicShared() {
        write(1, 64, 1, 1, 64, 1, 1);
        packet.groupSegmentSize(227 * 1024);
        assertEquals(227 * 1024, translate(AqlPacket.loadHeaderWordAcquire(ring, 0)).dynamicShared());
    }

    @Test
    void theReservedFenceScopeIsAProblemAndTheOthersAreNot() {
        int reserved = PacketType.KERNEL_DISPATCH.code() | 3 << PacketHeader.ACQUIRE_FENCE_SCOPE_SHIFT;
        assertTrue(PacketTranslation.fenceProblem(reserved).contains("reserved fence scope"));
        assertNull(PacketTranslation.fenceProblem(PacketHeader.of(PacketType.KERNEL_DISPATCH, true, FenceScope.AGENT,
                FenceScope.SYSTEM)));
    }
}
