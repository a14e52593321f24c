package org.hsa4j.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.EnumSet;

import org.hsa4j.kernel.Executable;
import org.hsa4j.kernel.KernelDescriptor;
import org.hsa4j.memory.MemoryManager;
import org.hsa4j.packet.AqlPacket;
import org.hsa4j.packet.FenceScope;
import org.hsa4j.packet.KernelDispatchPacket;
import org.hsa4j.packet.PacketHeader;
import org.hsa4j.packet.PacketType;
import org.hsa4j.runtime.HsaRuntime;
import org.hsa4j.status.HsaStatus;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The packet decoder's rules, on a plain memory segment: no queue, no signal, no compute unit. */
class PacketDecoderTest {
    private final Arena arena = Arena.ofConfined();
    private final MemorySegment ring = arena.allocate(AqlPacket.SIZE, AqlPacket.SIZE);
    private final KernelDispatchPacket packet = new KernelDispatchPacket().wrap(ring, 0);

    @AfterEach
    void free() {
        arena.close();
    }

    private static AgentProperties props(AgentFeature feature) {
        return new AgentProperties("gpu-test", DeviceType.GPU, EnumSet.of(feature), 4, 32,
                new int[] {1024, 1024, 64}, 1024, new long[] {1L << 31, 65535, 65535}, 0xFFFF_FFFFL, 4, 1 << 16, 8,
                48 * 1024, 0);
    }

    private static PacketDecoder decoder(AgentFeature feature) {
        return new PacketDecoder("gpu-test", 1, props(feature), new MemoryManager(), null);
    }

    private static int kernelWord(int dims) {
        return PacketHeader.word(PacketHeader.of(PacketType.KERNEL_DISPATCH, false, FenceScope.SYSTEM, FenceScope.SYSTEM),
                (short) dims);
    }

    /** A one-work-item 1D dispatch of {@code kernelObject}. */
    private void write(long kernelObject) {
        packet.workgroupSize(1, 1, 1).gridSize(1, 1, 1).privateSegmentSize(0).groupSegmentSize(0)
                .kernelObject(kernelObject).kernargAddress(0).completionSignal(0);
    }

    @Test
    void decodesAGoodKernelDispatchIntoItsFields() {
        try (HsaRuntime rt = HsaRuntime.init()) {
            long kernel = rt.createExecutable().define("k", KernelDescriptor.EMPTY, wi -> { }).freeze()
                    .symbol("k").kernelObject();
            PacketDecoder d = new PacketDecoder("gpu-test", rt.gpuAgent().index(), props(AgentFeature.KERNEL_DISPATCH),
                    rt.memory(), rt.svm());
            write(kernel);
            packet.workgroupSize(8, 2, 1).gridSize(64, 4, 1).groupSegmentSize(256);
            assertNull(d.decodeKernel(ring, 0, kernelWord(2)));
            assertEquals(2, d.dims);
            assertEquals(8, d.wgX);
            assertEquals(2, d.wgY);
            assertEquals(64, d.gridX);
            assertEquals(4, d.gridY);
            assertEquals(256, d.groupSize);
            assertEquals("k", d.code.name());
            assertSame(MemorySegment.NULL, d.kernarg);
        }
    }

    @Test
    void rejectsAKernelObjectItDecodedBeforeOnceItsExecutableIsDestroyed() {
        try (HsaRuntime rt = HsaRuntime.init()) {
            Executable exe = rt.createExecutable().define("k", KernelDescriptor.EMPTY, wi -> { }).freeze();
            long kernel = exe.symbol("k").kernelObject();
            PacketDecoder d = new PacketDecoder("gpu-test", rt.gpuAgent().index(), props(AgentFeature.KERNEL_DISPATCH),
                    rt.memory(), rt.svm());
            write(kernel);
            assertNull(d.decodeKernel(ring, 0, kernelWord(1)));
            exe.close();
            assertEquals(String.format("unknown kernel object 0x%x", kernel), d.decodeKernel(ring, 0, kernelWord(1)));
            assertEquals(HsaStatus.INVALID_CODE_OBJECT, d.status);
        }
    }

    @Test
    void rejectsZeroDimensionsAsIncompatibleArguments() {
        PacketDecoder d = decoder(AgentFeature.KERNEL_DISPATCH);
        write(0);
        assertTrue(d.decodeKernel(ring, 0, kernelWord(0)).contains("0 dimensions"));
        assertEquals(HsaStatus.INCOMPATIBLE_ARGUMENTS, d.status);
    }

    @Test
    void rejectsAnUnusedAxisThatIsNotOneAsIncompatibleArguments() {
        PacketDecoder d = decoder(AgentFeature.KERNEL_DISPATCH);
        write(0);
        packet.gridSize(4, 2, 1);
        assertTrue(d.decodeKernel(ring, 0, kernelWord(1)).contains("grid_size_y must be 1"));
        assertEquals(HsaStatus.INCOMPATIBLE_ARGUMENTS, d.status);
    }

    @Test
    void rejectsAWorkgroupOverTheAgentsMaximumAsInvalidArgument() {
        PacketDecoder d = decoder(AgentFeature.KERNEL_DISPATCH);
        write(0);
        packet.workgroupSize(2048, 1, 1).gridSize(4096, 1, 1);
        assertTrue(d.decodeKernel(ring, 0, kernelWord(1)).contains("workgroup_size_x 2048"));
        assertEquals(HsaStatus.INVALID_ARGUMENT, d.status);
    }

    @Test
    void rejectsAGroupSegmentOverTheAgentsMaximumAsInvalidAllocation() {
        PacketDecoder d = decoder(AgentFeature.KERNEL_DISPATCH);
        write(0);
        packet.groupSegmentSize(64 * 1024);
        assertTrue(d.decodeKernel(ring, 0, kernelWord(1)).contains("group segment of 65536 bytes"));
        assertEquals(HsaStatus.INVALID_ALLOCATION, d.status);
    }

    @Test
    void rejectsAnUnknownKernelObjectAsInvalidCodeObject() {
        PacketDecoder d = decoder(AgentFeature.KERNEL_DISPATCH);
        write(0x1234);
        assertEquals("unknown kernel object 0x1234", d.decodeKernel(ring, 0, kernelWord(1)));
        assertEquals(HsaStatus.INVALID_CODE_OBJECT, d.status);
    }

    @Test
    void rejectsKernelDispatchesOnAnAgentWithoutThatFeature() {
        PacketDecoder d = decoder(AgentFeature.AGENT_DISPATCH);
        write(0);
        assertEquals("gpu-test does not run kernel dispatch packets", d.decodeKernel(ring, 0, kernelWord(1)));
        assertEquals(HsaStatus.INVALID_PACKET_FORMAT, d.status);
    }

    @Test
    void rejectsAReservedFenceScopeAsInvalidPacketFormat() {
        PacketDecoder d = decoder(AgentFeature.KERNEL_DISPATCH);
        int word = kernelWord(1) | (3 << PacketHeader.ACQUIRE_FENCE_SCOPE_SHIFT);
        assertTrue(d.checkHeader(word).contains("reserved fence scope"));
        assertEquals(HsaStatus.INVALID_PACKET_FORMAT, d.status);
        assertNull(d.checkHeader(kernelWord(1)));
    }

    @Test
    void rejectsAnAgentDispatchTypeWithoutAHandler() {
        PacketDecoder d = decoder(AgentFeature.AGENT_DISPATCH);
        int word = PacketHeader.word(PacketHeader.of(PacketType.AGENT_DISPATCH, false, FenceScope.NONE, FenceScope.NONE),
                (short) 77);
        assertEquals("no agent dispatch handler for type 77 on gpu-test", d.checkAgentDispatch(word, null));
        assertEquals(HsaStatus.INVALID_PACKET_FORMAT, d.status);
        assertNull(d.checkAgentDispatch(word, request -> { }));
        assertEquals(77, d.agentDispatchType);
    }

    @Test
    void namesVendorSpecificPacketsAsUnsupported() {
        assertEquals("vendor-specific packets are not supported",
                decoder(AgentFeature.KERNEL_DISPATCH).unsupportedType(PacketType.VENDOR_SPECIFIC.code()));
    }
}
