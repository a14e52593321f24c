package org.hsa4j.stress.mutant;

import java.util.List;

/**
 * Every protocol and litmus test of the stress suite, each either twinned (a {@link ProtocolTwin}
 * whose weakened form fidelity mode must fail every time) or listed with the reason no cache model
 * can fail a weakened form of it. docs/MEMORY-MODEL.md prints this table.
 */
public final class MutantCatalogue {
    /** A stress test that has no twin, and why. */
    public record Untwinned(String test, String reason) {
    }

    private MutantCatalogue() {
    }

    /** A fresh instance of every twin, in report order. */
    public static List<ProtocolTwin> twins() {
        return List.of(
                new MessagePassingTwins.KernelToHost(),
                new MessagePassingTwins.HostToKernel(),
                new MessagePassingTwins.CompletionThenData(),
                new MessagePassingTwins.FencedMessagePassing(),
                new MessagePassingTwins.PacketPublish(),
                new HandoffTwins.Sync2Way(),
                new HandoffTwins.CasLock(),
                new HandoffTwins.Ticket(),
                new LitmusTwins.StoreBuffering(),
                new LitmusTwins.Isa2(),
                new LitmusTwins.Wrc(),
                new HostSideTwins.HostRingsRelaxed(),
                new HostSideTwins.HostReadsFlagRelaxed(),
                new AdversarialTwins.NeverCachedLine(),
                new AdversarialTwins.MissingBarrierBit(),
                new GroupMemoryTwins.RawSegment(),
                new GroupMemoryTwins.CheckedView());
    }

    /** The stress tests without a twin. */
    public static List<Untwinned> untwinned() {
        String hostOnly = "every party is a host thread, and they synchronize through Java (locks, heap fields,"
                + " runtime-internal memory), which the model does not see (jcstress on the real JVM stays the check)";
        String internal = "the property is the packet processor's logic on runtime-internal queue and signal memory,"
                + " which the model keeps coherent: there is no user fence, scope or grain to weaken";
        return List.of(
                new Untwinned("BarrierAndCompletionTest", internal),
                new Untwinned("BarrierOrCompletionTest", internal),
                new Untwinned("QueueBackPressureTest", internal),
                new Untwinned("DoorbellWatchTest", "both parties are the runtime's own accesses to its queue slot and"
                        + " doorbell signal (the processor's watch against a spec submission), memory the model keeps"
                        + " coherent; its host-side half, a relaxed doorbell, is HostSideTwins.HostRingsRelaxed"),
                new Untwinned("ServicePortHandoffTest.Inline, .Handler", hostOnly),
                new Untwinned("ServiceWatchHandoffTest", hostOnly),
                new Untwinned("ServiceKeptPortTest.OneShot", hostOnly),
                new Untwinned("CompletionFutureThenTest.TwoThens, .ThenVersusCompletion", hostOnly),
                new Untwinned("CompletionFutureCancelTest.CancelVersusCompletion", "cancel() and the completing thread"
                        + " decide on the future's lock and heap fields, outside the model; the kernel's payload is a heap"
                        + " field too: there is no fence, scope or grain to weaken"),
                new Untwinned("DeviceHeapAllocationTest", "the claim is a system-scope CAS inside the services' allocator;"
                        + " its shape (two parties take from one word) is the ticket-counter twin"),
                new Untwinned("LoadBufferingLitmus.AcquireRelease", "1, 1 needs a load to read a store that comes later"
                        + " in the other party's program; a cache never speculates, so no weakened form shows it"),
                new Untwinned("TwoPlusTwoWritesLitmus.Release", "1, 1 needs one party's two writes to reach memory in"
                        + " opposite orders; a unit writes back all its dirty lines at one release, so no weakened form"
                        + " shows it deterministically"),
                new Untwinned("CoherenceReadReadLitmus.Relaxed", "a cache keeps each location coherent for its reader:"
                        + " once a unit has read the new value it never reads the old one"));
    }
}
