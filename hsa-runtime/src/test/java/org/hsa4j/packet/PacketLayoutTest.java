package org.hsa4j.packet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.TimeUnit;

import org.hsa4j.memory.MemoryScope;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Header encoding and packet layouts against the HSA spec's numbers. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class PacketLayoutTest {
    private Arena arena;
    private MemorySegment ring;

    @BeforeEach
    void start() {
        arena = Arena.ofConfined();
        ring = arena.allocate(2 * AqlPacket.SIZE, AqlPacket.ALIGNMENT);
    }

    @AfterEach
    void stop() {
        arena.close();
    }

    @Test
    void shouldUseTheSpecsPacketTypeCodes() {
        assertEquals(0, PacketType.VENDOR_SPECIFIC.code());
        assertEquals(1, PacketType.INVALID.code());
        assertEquals(2, PacketType.KERNEL_DISPATCH.code());
        assertEquals(3, PacketType.BARRIER_AND.code());
        assertEquals(4, PacketType.AGENT_DISPATCH.code());
        assertEquals(5, PacketType.BARRIER_OR.code());
    }

    @ParameterizedTest
    @EnumSource(PacketType.class)
    void shouldFindEveryPacketTypeByItsCode(PacketType type) {
        assertEquals(type, PacketType.fromCode(type.code()));
    }

    @Test
    void shouldFindNoPacketTypeForAnUnknownCode() {
        assertNull(PacketType.fromCode(6));
        assertNull(PacketType.fromCode(255));
        assertNull(PacketType.fromCode(-1));
    }

    @Test
    void shouldUseTheSpecsFenceScopeCodes() {
        assertEquals(0, FenceScope.NONE.code());
        assertEquals(1, FenceScope.AGENT.code());
        assertEquals(2, FenceScope.SYSTEM.code());
        assertNull(FenceScope.fromCode(3), "3 is reserved");
        assertNull(FenceScope.NONE.memoryScope());
        assertEquals(MemoryScope.AGENT, FenceScope.AGENT.memoryScope());
        assertEquals(MemoryScope.SYSTEM, FenceScope.SYSTEM.memoryScope());
    }

    @Test
    void shouldPlaceHeaderFieldsAtTheSpecsBits() {
        short h = PacketHeader.of(PacketType.BARRIER_OR, true, FenceScope.AGENT, FenceScope.SYSTEM);
        assertEquals(5 | 1 << 8 | 1 << 9 | 2 << 11, h & 0xFFFF);
        assertEquals(5, PacketHeader.typeCode(h));
        assertTrue(PacketHeader.barrier(h));
        assertEquals(1, PacketHeader.acquireScopeCode(h));
        assertEquals(2, PacketHeader.releaseScopeCode(h));
    }

    @Test
    void shouldDecodeAHeaderWithoutBarrierOrFences() {
        short h = PacketHeader.of(PacketType.KERNEL_DISPATCH, false, FenceScope.NONE, FenceScope.NONE);
        assertEquals(2, h);
        assertFalse(PacketHeader.barrier(h));
        assertEquals(0, PacketHeader.acquireScopeCode(h));
        assertEquals(0, PacketHeader.releaseScopeCode(h));
    }

    @Test
    void shouldPutTheHeaderInTheLowHalfOfThePublishedWord() {
        short h = PacketHeader.of(PacketType.KERNEL_DISPATCH, true, FenceScope.SYSTEM, FenceScope.SYSTEM);
        int word = PacketHeader.word(h, (short) 3);
        assertEquals(h & 0xFFFF, word & 0xFFFF);
        assertEquals(3, word >>> 16);
        assertEquals(0xFFFF, PacketHeader.word((short) -1, (short) 0));
        assertEquals(0xFFFF_0000, PacketHeader.word((short) 0, (short) -1));
    }

    @Test
    void shouldLayOutKernelDispatchPacketsAsTheSpec() {
        assertEquals(2, KernelDispatchPacket.SETUP);
        assertEquals(4, KernelDispatchPacket.WORKGROUP_SIZE_X);
        assertEquals(6, KernelDispatchPacket.WORKGROUP_SIZE_Y);
        assertEquals(8, KernelDispatchPacket.WORKGROUP_SIZE_Z);
        assertEquals(12, KernelDispatchPacket.GRID_SIZE_X);
        assertEquals(16, KernelDispatchPacket.GRID_SIZE_Y);
        assertEquals(20, KernelDispatchPacket.GRID_SIZE_Z);
        assertEquals(24, KernelDispatchPacket.PRIVATE_SEGMENT_SIZE);
        assertEquals(28, KernelDispatchPacket.GROUP_SEGMENT_SIZE);
        assertEquals(32, KernelDispatchPacket.KERNEL_OBJECT);
        assertEquals(40, KernelDispatchPacket.KERNARG_ADDRESS);
        assertEquals(56, AqlPacket.COMPLETION_SIGNAL);
        assertEquals(64, AqlPacket.SIZE);
    }

    @Test
    void shouldLayOutAgentDispatchAndBarrierPacketsAsTheSpec() {
        assertEquals(2, AgentDispatchPacket.TYPE);
        assertEquals(8, AgentDispatchPacket.RETURN_ADDRESS);
        assertEquals(16, AgentDispatchPacket.ARG0);
        assertEquals(4, AgentDispatchPacket.ARG_COUNT);
        assertEquals(8, BarrierPacket.DEP_SIGNAL0);
        assertEquals(5, BarrierPacket.DEP_SIGNAL_COUNT);
    }

    @Test
    void shouldWriteAKernelDispatchThroughTheFlyweight() {
        KernelDispatchPacket p = new KernelDispatchPacket().wrap(ring, AqlPacket.SIZE);
        p.workgroupSize(64, 2, 1).gridSize(1000, 0x8000_0000, 1).privateSegmentSize(48).groupSegmentSize(640)
                .kernelObject(0x1122_3344_5566_7788L).kernargAddress(0xAABB_CCDDL).completionSignal(77);
        long b = AqlPacket.SIZE;
        assertEquals(64, ring.get(ValueLayout.JAVA_SHORT, b + KernelDispatchPacket.WORKGROUP_SIZE_X));
        assertEquals(2, ring.get(ValueLayout.JAVA_SHORT, b + KernelDispatchPacket.WORKGROUP_SIZE_Y));
        assertEquals(1, ring.get(ValueLayout.JAVA_SHORT, b + KernelDispatchPacket.WORKGROUP_SIZE_Z));
        assertEquals(1000, ring.get(ValueLayout.JAVA_INT, b + KernelDispatchPacket.GRID_SIZE_X));
        assertEquals(0x8000_0000, ring.get(ValueLayout.JAVA_INT, b + KernelDispatchPacket.GRID_SIZE_Y));
        assertEquals(48, ring.get(ValueLayout.JAVA_INT, b + KernelDispatchPacket.PRIVATE_SEGMENT_SIZE));
        assertEquals(640, ring.get(ValueLayout.JAVA_INT, b + KernelDispatchPacket.GROUP_SEGMENT_SIZE));
        assertEquals(0x1122_3344_5566_7788L, ring.get(ValueLayout.JAVA_LONG, b + KernelDispatchPacket.KERNEL_OBJECT));
        assertEquals(0xAABB_CCDDL, ring.get(ValueLayout.JAVA_LONG, b + KernelDispatchPacket.KERNARG_ADDRESS));
        assertEquals(77, ring.get(ValueLayout.JAVA_LONG, b + AqlPacket.COMPLETION_SIGNAL));
        assertEquals(0, ring.get(ValueLayout.JAVA_LONG, 0), "the flyweight wrote outside its slot");
    }

    @Test
    void shouldPublishHeaderAndSetupInOneWord() {
        KernelDispatchPacket p = new KernelDispatchPacket().wrap(ring, 0);
        short h = PacketHeader.of(PacketType.KERNEL_DISPATCH, false, FenceScope.SYSTEM, FenceScope.AGENT);
        p.publish(h, 3);
        int word = AqlPacket.loadHeaderWordAcquire(ring, 0);
        assertEquals(h & 0xFFFF, word & 0xFFFF);
        assertEquals(3, KernelDispatchPacket.dimensions(word >>> 16));
    }

    @Test
    void shouldPublishTheAgentDispatchTypeWithTheHeader() {
        AgentDispatchPacket p = new AgentDispatchPacket().wrap(ring, 0);
        p.returnAddress(5).arg(0, 10).arg(3, 13).completionSignal(9);
        p.publish(PacketHeader.of(PacketType.AGENT_DISPATCH, false, FenceScope.NONE, FenceScope.NONE), 0xBEEF);
        int word = AqlPacket.loadHeaderWordAcquire(ring, 0);
        assertEquals(PacketType.AGENT_DISPATCH.code(), PacketHeader.typeCode(word));
        assertEquals(0xBEEF, word >>> 16);
        assertEquals(5, ring.get(ValueLayout.JAVA_LONG, AgentDispatchPacket.RETURN_ADDRESS));
        assertEquals(10, ring.get(ValueLayout.JAVA_LONG, AgentDispatchPacket.ARG0));
        assertEquals(13, ring.get(ValueLayout.JAVA_LONG, AgentDispatchPacket.ARG0 + 24));
        assertThrows(IndexOutOfBoundsException.class, () -> p.arg(4, 1));
    }

    @Test
    void shouldWriteBarrierDependenciesAndClearTheBodyButNotTheHeader() {
        BarrierPacket p = new BarrierPacket().wrap(ring, 0);
        AqlPacket.storeInvalid(ring, 0);
        p.depSignal(0, 100).depSignal(4, 104).completionSignal(200);
        assertEquals(100, ring.get(ValueLayout.JAVA_LONG, BarrierPacket.DEP_SIGNAL0));
        assertEquals(104, ring.get(ValueLayout.JAVA_LONG, BarrierPacket.DEP_SIGNAL0 + 32));
        p.clearBody();
        for (long off = 8; off < AqlPacket.SIZE; off += 8) {
            assertEquals(0, ring.get(ValueLayout.JAVA_LONG, off), "offset " + off);
        }
        assertEquals(PacketType.INVALID.code(), PacketHeader.typeCode(AqlPacket.loadHeaderWordAcquire(ring, 0)));
        assertThrows(IndexOutOfBoundsException.class, () -> p.depSignal(5, 1));
    }

    @Test
    void shouldWriteFiveDependenciesFromAnArrayAndZeroPastItsEnd() {
        BarrierPacket p = new BarrierPacket().wrap(ring, 0);
        for (long off = 8; off < AqlPacket.SIZE; off += 8) {
            ring.set(ValueLayout.JAVA_LONG, off, -1L);
        }
        p.depSignals(new long[] {1, 2, 3, 4, 5, 6, 7}, 5);
        assertEquals(6, ring.get(ValueLayout.JAVA_LONG, BarrierPacket.DEP_SIGNAL0));
        assertEquals(7, ring.get(ValueLayout.JAVA_LONG, BarrierPacket.DEP_SIGNAL0 + 8));
        for (int i = 2; i < BarrierPacket.DEP_SIGNAL_COUNT; i++) {
            assertEquals(0, ring.get(ValueLayout.JAVA_LONG, BarrierPacket.DEP_SIGNAL0 + 8L * i), "dependency " + i);
        }
        assertEquals(-1L, ring.get(ValueLayout.JAVA_LONG, BarrierPacket.RESERVED2), "the reserved word behind them");
    }
}
