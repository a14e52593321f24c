package org.hsa4j.stress.mutant;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
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
import org.openjdk.jcstress.annotations.JCStressTest;

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
    void shouldNameEveryStressTestOnceAsTwinnedOrUntwinned() throws Exception {
        Set<String> named = new HashSet<>();
        for (ProtocolTwin t : MutantCatalogue.twins()) {
            named.addAll(List.of(t.twinOf().split(", ")));
        }
        for (MutantCatalogue.Untwinned u : MutantCatalogue.untwinned()) {
            named.add(u.test().split("[ ,.]")[0]);
        }
        Set<String> classes = new HashSet<>();
        named.forEach(n -> classes.add(n.split("\\.")[0]));
        Set<String> stressTests = stressTestClasses();
        assertTrue(stressTests.size() >= 25, "found only " + stressTests + " on the class path");
        for (String test : stressTests) {
            assertTrue(classes.contains(test), test + " is neither twinned nor listed as untwinned");
        }
    }

    /** The simple names of the classes in the protocol and litmus packages that are, or hold, jcstress tests. */
    private static Set<String> stressTestClasses() throws Exception {
        Set<String> found = new HashSet<>();
        for (String pkg : List.of("org.hsa4j.stress.protocol", "org.hsa4j.stress.litmus")) {
            Path dir = Path.of(MutantTwinTest.class.getClassLoader().getResource(pkg.replace('.', '/')).toURI());
            try (Stream<Path> files = Files.list(dir)) {
                for (Path f : files.filter(f -> f.toString().endsWith(".class")).toList()) {
                    Class<?> c = Class.forName(pkg + "." + f.getFileName().toString().replace(".class", ""), false,
                            MutantTwinTest.class.getClassLoader());
                    if (c.isAnnotationPresent(JCStressTest.class)
                            || Arrays.stream(c.getDeclaredClasses()).anyMatch(n -> n.isAnnotationPresent(JCStressTest.class))) {
                        found.add(c.getEnclosingClass() == null ? c.getSimpleName() : c.getEnclosingClass().getSimpleName());
                    }
                }
            }
        }
        return found;
    }
}
