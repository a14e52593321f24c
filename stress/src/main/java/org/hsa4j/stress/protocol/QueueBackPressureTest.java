package org.hsa4j.stress.protocol;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import org.hsa4j.packet.AqlPacket;
import org.hsa4j.packet.BarrierPacket;
import org.hsa4j.packet.FenceScope;
import org.hsa4j.packet.PacketHeader;
import org.hsa4j.packet.PacketType;
import org.hsa4j.queue.Queue;
import org.hsa4j.queue.QueueType;
import org.hsa4j.runtime.HsaRuntime;
import org.hsa4j.stress.StressRuntime;
import org.hsa4j.testsupport.BoundedWait;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.LL_Result;

/**
 * Back-pressure on a full queue: two producers submit into a two-packet queue that the GPU
 * agent's packet processor drains, following the spec's protocol: {@code id = addWriteIndex},
 * wait until {@code id < readIndex + size}, write, publish, ring. A producer must never write a
 * slot whose previous packet has not been consumed: once the read index it acquire-loaded says
 * there is space, the slot's header must read INVALID (the processor writes INVALID before it
 * advances the read index with release).
 *
 * <p>The packets are barrier-AND packets with no dependencies and no completion signal, which
 * the processor completes the moment it launches them, so the queue is full most of the time.
 */
@JCStressTest
@Description("a producer that waited for readIndex + size > id always finds the slot consumed (INVALID)")
@Outcome(id = "OK, OK", expect = ACCEPTABLE, desc = "both producers found a consumed slot")
@Outcome(id = ".*OVERWRITE.*", expect = FORBIDDEN, desc = "a producer would overwrite an unconsumed packet")
@Outcome(id = ".*TIMEOUT.*", expect = FORBIDDEN, desc = "the read index never made room: the processor stalled")
@Outcome(expect = FORBIDDEN, desc = "anything else")
@State
public class QueueBackPressureTest {
    static final HsaRuntime RT = StressRuntime.start();
    static final Queue QUEUE = RT.gpuAgent().createQueue(2, QueueType.MULTI,
            (error, q) -> System.err.println("stress: queue " + q.id() + " failed: " + error.getMessage()));
    static final short HEADER = PacketHeader.of(PacketType.BARRIER_AND, false, FenceScope.NONE, FenceScope.NONE);

    /** Submits one dependency-free barrier-AND packet; reports OK, OVERWRITE or TIMEOUT. */
    static String submit() {
        long id = QUEUE.addWriteIndexScacqScrel(1);
        if (!BoundedWait.until(() -> id - QUEUE.loadReadIndexScacquire() < QUEUE.size())) {
            return BoundedWait.TIMEOUT;
        }
        int word = AqlPacket.loadHeaderWordAcquire(QUEUE.ring(), QUEUE.slotOffset(id));
        String verdict = PacketHeader.typeCode(word) == PacketType.INVALID.code() ? "OK" : "OVERWRITE";
        // publish even after a bad verdict: an id reserved and never published would wedge the queue
        BarrierPacket packet = QUEUE.barrierPacket(id);
        packet.clearBody();
        packet.publish(HEADER);
        QUEUE.ringDoorbell(id);
        return verdict;
    }

    /** The first producer. */
    @Actor
    public void producer1(LL_Result r) {
        r.r1 = submit();
    }

    /** The second producer. */
    @Actor
    public void producer2(LL_Result r) {
        r.r2 = submit();
    }
}
