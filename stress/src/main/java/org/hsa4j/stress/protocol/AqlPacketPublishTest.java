package org.hsa4j.stress.protocol;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import org.hsa4j.memory.Svm;
import org.hsa4j.packet.AqlPacket;
import org.hsa4j.packet.KernelDispatchPacket;
import org.hsa4j.packet.PacketHeader;
import org.hsa4j.packet.PacketType;
import org.hsa4j.runtime.HsaRuntime;
import org.hsa4j.stress.PacketSubmitter;
import org.hsa4j.stress.StressRuntime;
import org.hsa4j.testsupport.SvmSlots;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.L_Result;

/**
 * An AQL packet is published whole: the producer writes a kernel dispatch body with plain stores
 * through the {@link KernelDispatchPacket} flyweight and publishes the header and setup with one
 * 32-bit release store; the other actor plays the packet processor, acquire-loads the header word
 * with {@link AqlPacket#loadHeaderWordAcquire} and, once it is valid, reads the body.
 *
 * <p>The slot is a 64-byte SVM allocation laid out exactly like a ring slot (a real queue's packet
 * processor would race the actor for it), so the outcome depends only on the publication order.
 * Every body field carries a distinct value; a valid header with any field still zero is a torn
 * packet.
 */
@JCStressTest
@Description("AQL publish: body by plain stores, then header|setup by one release store; an acquire load of the header sees the whole body")
@Outcome(id = "INVALID", expect = ACCEPTABLE, desc = "not yet published: the processor leaves the slot alone")
@Outcome(id = "WHOLE", expect = ACCEPTABLE, desc = "published, and every body field is there")
@Outcome(id = "TORN", expect = FORBIDDEN, desc = "valid header but a body field still missing")
@Outcome(expect = FORBIDDEN, desc = "a header word that was never written (a torn 32-bit store)")
@State
public class AqlPacketPublishTest {
    static final HsaRuntime RT = StressRuntime.start();
    static final Svm SVM = RT.svm();
    static final SvmSlots SLOTS = SvmSlots.of(RT, AqlPacket.SIZE);

    static final int DIMENSIONS = 3;
    static final int WORD = PacketHeader.word(PacketSubmitter.DISPATCH_HEADER, (short) DIMENSIONS);
    static final int WG_X = 8;
    static final int WG_Y = 4;
    static final int WG_Z = 2;
    static final int GRID_X = 64;
    static final int GRID_Y = 32;
    static final int GRID_Z = 16;
    static final int PRIVATE = 128;
    static final int GROUP = 256;
    static final long KERNEL_OBJECT = 0x1111_2222_3333_4444L;
    static final long KERNARG = 0x5555_6666_7777_8888L;
    static final long COMPLETION = 0x0123_4567_89AB_CDEFL;

    final MemorySegment slot;

    public AqlPacketPublishTest() {
        slot = SVM.segment(SLOTS.next(), AqlPacket.SIZE);
        AqlPacket.storeInvalid(slot, 0);
    }

    /** Writes the body with plain stores, then publishes the header word with release. */
    @Actor
    public void producer() {
        new KernelDispatchPacket().wrap(slot, 0)
                .workgroupSize(WG_X, WG_Y, WG_Z)
                .gridSize(GRID_X, GRID_Y, GRID_Z)
                .privateSegmentSize(PRIVATE)
                .groupSegmentSize(GROUP)
                .kernelObject(KERNEL_OBJECT)
                .kernargAddress(KERNARG)
                .completionSignal(COMPLETION)
                .publish(PacketSubmitter.DISPATCH_HEADER, DIMENSIONS);
    }

    /** Acquire-loads the header word; if the packet is published, reads the body. */
    @Actor
    public void packetProcessor(L_Result r) {
        int word = AqlPacket.loadHeaderWordAcquire(slot, 0);
        if (word == PacketType.INVALID.code()) {
            r.r1 = "INVALID";
        } else if (word != WORD) {
            r.r1 = String.format("HEADER 0x%08x", word);
        } else {
            r.r1 = bodyComplete() ? "WHOLE" : "TORN";
        }
    }

    private boolean bodyComplete() {
        return slot.get(ValueLayout.JAVA_SHORT, KernelDispatchPacket.WORKGROUP_SIZE_X) == WG_X
                & slot.get(ValueLayout.JAVA_SHORT, KernelDispatchPacket.WORKGROUP_SIZE_Y) == WG_Y
                & slot.get(ValueLayout.JAVA_SHORT, KernelDispatchPacket.WORKGROUP_SIZE_Z) == WG_Z
                & slot.get(ValueLayout.JAVA_INT, KernelDispatchPacket.GRID_SIZE_X) == GRID_X
                & slot.get(ValueLayout.JAVA_INT, KernelDispatchPacket.GRID_SIZE_Y) == GRID_Y
                & slot.get(ValueLayout.JAVA_INT, KernelDispatchPacket.GRID_SIZE_Z) == GRID_Z
                & slot.get(ValueLayout.JAVA_INT, KernelDispatchPacket.PRIVATE_SEGMENT_SIZE) == PRIVATE
                & slot.get(ValueLayout.JAVA_INT, KernelDispatchPacket.GROUP_SEGMENT_SIZE) == GROUP
                & slot.get(ValueLayout.JAVA_LONG, KernelDispatchPacket.KERNEL_OBJECT) == KERNEL_OBJECT
                & slot.get(ValueLayout.JAVA_LONG, KernelDispatchPacket.KERNARG_ADDRESS) == KERNARG
                & slot.get(ValueLayout.JAVA_LONG, AqlPacket.COMPLETION_SIGNAL) == COMPLETION;
    }
}
