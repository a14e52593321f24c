package org.hsa4j.stress.protocol;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.VarHandle;

import org.hsa4j.memory.Svm;
import org.hsa4j.packet.AqlPacket;
import org.hsa4j.packet.KernelDispatchPacket;
import org.hsa4j.packet.PacketType;
import org.hsa4j.runtime.HsaRuntime;
import org.hsa4j.signal.Signal;
import org.hsa4j.stress.PacketSubmitter;
import org.hsa4j.stress.StressRuntime;
import org.hsa4j.testsupport.SignalRing;
import org.hsa4j.testsupport.SvmSlots;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.II_Result;

/**
 * The packet processor's doorbell watch (PacketProcessor.watch): between scans the role holder
 * reads the doorbell value relaxed, then an acquire fence, then scans the slots with acquire loads
 * of their header words. The producer publishes a packet's header word with a release store and
 * then rings the doorbell with {@code storeScrelease}, as the spec's submission does. A doorbell
 * value seen by the watch must come with the header it announces, or the scan after it would miss
 * the packet and the watch would wait for a doorbell that already rang.
 */
@JCStressTest
@Description("doorbell watch: a relaxed doorbell load, an acquire fence, then the header: a rung doorbell shows its packet")
@Outcome(id = "0, 0", expect = ACCEPTABLE, desc = "neither seen yet")
@Outcome(id = "0, 1", expect = ACCEPTABLE, desc = "the packet seen before its doorbell: the scan launches it anyway")
@Outcome(id = "1, 1", expect = ACCEPTABLE, desc = "doorbell and packet")
@Outcome(id = "1, 0", expect = FORBIDDEN, desc = "the doorbell seen but not the packet it announces: the packet would wait")
@State
public class DoorbellWatchTest {
    static final HsaRuntime RT = StressRuntime.start();
    static final Svm SVM = RT.svm();
    static final SvmSlots SLOTS = SvmSlots.of(RT, AqlPacket.SIZE);
    static final SignalRing SIGNALS = SignalRing.of(RT, 1);

    final MemorySegment slot;
    final Signal doorbell = SIGNALS.next(0);

    public DoorbellWatchTest() {
        slot = SVM.segment(SLOTS.next(), AqlPacket.SIZE);
        AqlPacket.storeInvalid(slot, 0);
    }

    /** Publishes the header word with release, then rings the doorbell with release. */
    @Actor
    public void producer() {
        new KernelDispatchPacket().wrap(slot, 0).publish(PacketSubmitter.DISPATCH_HEADER, 1);
        doorbell.storeScrelease(1);
    }

    /** The watch: the doorbell relaxed, an acquire fence, then the header word with acquire. */
    @Actor
    public void packetProcessor(II_Result r) {
        r.r1 = (int) doorbell.loadRelaxed();
        VarHandle.acquireFence();
        r.r2 = AqlPacket.loadHeaderWordAcquire(slot, 0) == PacketType.INVALID.code() ? 0 : 1;
    }
}
