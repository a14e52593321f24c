package org.hsa4j.stress.gate;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.File;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;

/** The child JVM runs in the gate's own directory, so every class path entry it gets is absolute. */
class StressGateClassPathTest {
    @Test
    void shouldMakeEveryEntryOfASeveralEntryClassPathAbsolute() {
        String cwd = Path.of("").toAbsolutePath().toString();
        String classPath = String.join(File.pathSeparator, "examples/target/test-classes", "/abs/jcstress.jar",
                "stress/target/classes");
        assertEquals(String.join(File.pathSeparator, cwd + "/examples/target/test-classes", "/abs/jcstress.jar",
                cwd + "/stress/target/classes"), StressGate.absoluteClassPath(classPath));
    }
}
