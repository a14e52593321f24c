package org.hsa4j.agent;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.hsa4j.packet.FenceScope;
import org.hsa4j.packet.PacketHeader;
import org.hsa4j.packet.PacketType;
import org.junit.jupiter.api.Test;

/** When a unit that looks around without the role counts a queue's next packet as work to act on. */
class PublishedWorkRuleTest {
    private static final int DISPATCH = PacketHeader.of(PacketType.KERNEL_DISPATCH, true, FenceScope.SYSTEM,
            FenceScope.SYSTEM) & 0xFFFF;
    private static final int INVALID = PacketType.INVALID.code();

    @Test
    void aPublishedPacketTheProcessorDidNotStopAtIsWork() {
        assertTrue(PacketProcessor.actionable(DISPATCH, 7, -1, false, 3));
    }

    @Test
    void anEmptySlotIsNoWork() {
        assertFalse(PacketProcessor.actionable(INVALID, 7, -1, false, 0));
    }

    @Test
    void aPacketHeldByItsBarrierBitIsNoWorkWhileItsQueueHasWorkInFlight() {
        assertFalse(PacketProcessor.actionable(DISPATCH, 7, 7, true, 1));
    }

    @Test
    void aPacketHeldByItsBarrierBitIsWorkOnceNothingIsInFlight() {
        // failed before: the stop counted until the processor scanned again, and a timed look parked beside it
        assertTrue(PacketProcessor.actionable(DISPATCH, 7, 7, true, 0));
    }

    @Test
    void aBarrierPacketWaitingOnItsDependenciesIsNoWorkEvenWithNothingInFlight() {
        assertFalse(PacketProcessor.actionable(PacketType.BARRIER_AND.code(), 7, 7, false, 0));
    }
}
