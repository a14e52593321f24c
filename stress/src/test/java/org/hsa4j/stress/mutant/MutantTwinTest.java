package org.hsa4j.stress.mutant;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Fidelity mode's promise, twin by twin: in 100 of 100 runs the weakened form shows the outcome
 * its stress test forbids, and the correct form never does (the two alternate on one runtime, so
 * neither leaves state that helps the other).
 */
@Timeout(120)
class MutantTwinTest {
    static final int RUNS = 100;
    static TwinRig rig;

    @BeforeAll
    static void start() {
        rig = TwinRig.start(true);
    }

    @AfterAll
    static void stop() {
        rig.close();
    }

    static Stream<ProtocolTwin> twins() {
        return MutantCatalogue.twins().stream();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("twins")
    void shouldFailWeakenedTwinEveryTimeAndCorrectTwinNever(ProtocolTwin twin) {
        int weak = 0;
        int correct = 0;
        for (int i = 0; i < RUNS; i++) {
            ProtocolTwin.Outcome w = twin.runOnce(rig, true);
            ProtocolTwin.Outcome c = twin.runOnce(rig, false);
            assertTrue(w.forbidden(), () -> twin.name() + " weakened passed: " + w.seen());
            assertFalse(c.forbidden(), () -> twin.name() + " correct failed: " + c.seen());
            weak += w.forbidden() ? 1 : 0;
            correct += c.forbidden() ? 1 : 0;
        }
        assertEquals(RUNS, weak);
        assertEquals(0, correct);
    }

    @Test
    void shouldNameEveryStressTestOnceAsTwinnedOrUntwinned() {
        Set<String> named = new HashSet<>();
        for (ProtocolTwin t : MutantCatalogue.twins()) {
            named.addAll(List.of(t.twinOf().split(", ")));
        }
        for (MutantCatalogue.Untwinned u : MutantCatalogue.untwinned()) {
            named.add(u.test().split("[ ,.]")[0]);
        }
        Set<String> classes = new HashSet<>();
        named.forEach(n -> classes.add(n.split("\\.")[0]));
        for (String test : List.of("SignalMessagePassingTest", "SignalWaitMessagePassingTest", "SignalAddSubtractTest",
                "SignalCasIncrementTest", "AqlPacketPublishTest", "WriteIndexReservationTest", "QueueBackPressureTest",
                "BarrierAndCompletionTest", "BarrierOrCompletionTest", "CompletionSignalThenDataTest",
                "HostKernelCasLockTest", "Sync2WayFlagHandoffTest", "Sync2WayKernelHandoffTest", "ServicePortHandoffTest",
                "ServiceWatchHandoffTest", "DeviceHeapAllocationTest", "CompletionFutureThenTest", "MessagePassingLitmus", "FencedMessagePassingLitmus",
                "StoreBufferingLitmus", "LoadBufferingLitmus", "TwoPlusTwoWritesLitmus", "CoherenceReadReadLitmus",
                "WriteReadCausalityLitmus", "Isa2Litmus")) {
            assertTrue(classes.contains(test), test + " is neither twinned nor listed as untwinned");
        }
    }
}
