package org.hsa4j.kernel;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;

import org.hsa4j.queue.Await;
import org.hsa4j.queue.Queue;
import org.hsa4j.queue.QueueType;
import org.hsa4j.queue.Submit;
import org.hsa4j.runtime.HsaRuntime;
import org.hsa4j.runtime.RuntimeConfig;
import org.hsa4j.signal.Signal;
import org.hsa4j.status.HsaException;
import org.hsa4j.status.HsaStatus;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Code object readers: class files and jars from a file or memory, loaded into executables. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class CodeObjectReaderTest {
    private HsaRuntime rt;
    @TempDir
    Path dir;

    @BeforeEach
    void start() {
        rt = HsaRuntime.init(RuntimeConfig.builder().computeUnits(1).build());
    }

    @AfterEach
    void stop() {
        rt.close();
    }

    @Test
    void shouldRunAKernelLoadedFromAJarInMemory() throws IOException {
        long counter = rt.hostMalloc(8);
        Executable exe = rt.createExecutable().defineGlobalVariable("counter", counter);
        try (CodeObjectReader reader = CodeObjectReader.fromBytes(jar(ReaderKernels.class, ReaderHelper.class))) {
            exe.loadCodeObject(reader).freeze();
        }
        dispatchAdd(exe, 5);
        dispatchAdd(exe, 37);
        assertEquals(42, rt.svm().getLong(counter));
    }

    @Test
    void shouldReadAClassFileFromAFile() throws IOException {
        Path file = dir.resolve("ReaderKernels.class");
        Files.write(file, classBytes(ReaderKernels.class));
        long counter = rt.hostMalloc(8);
        Executable exe = rt.createExecutable().defineGlobalVariable("counter", counter);
        try (CodeObjectReader reader = CodeObjectReader.fromFile(file)) {
            assertEquals(List.of(ReaderKernels.class.getName()), List.copyOf(reader.classNames()));
            exe.loadCodeObject(reader).freeze();
        }
        assertEquals(List.of("addToCounter", "counter"), exe.symbols().stream().map(ExecutableSymbol::name).toList());
    }

    @Test
    void shouldGiveEachLoadItsOwnClassesAndVariables() throws Exception {
        byte[] bytes = jar(ReaderKernels.class, ReaderHelper.class);
        long first = rt.hostMalloc(8);
        long second = rt.hostMalloc(8);
        try (CodeObjectReader reader = CodeObjectReader.fromBytes(bytes)) {
            Class<?>[] a = reader.defineClasses();
            Class<?>[] b = reader.defineClasses();
            assertNotSame(a[0], b[0], "two loads must not share a class");
            Executable one = rt.createExecutable().defineGlobalVariable("counter", first).loadCodeObject(reader).freeze();
            Executable two = rt.createExecutable().defineGlobalVariable("counter", second).loadCodeObject(reader).freeze();
            dispatchAdd(one, 1);
            dispatchAdd(two, 2);
        }
        assertEquals(1, rt.svm().getLong(first));
        assertEquals(2, rt.svm().getLong(second));
        assertEquals(0, ReaderKernels.counterAddress(), "the application's own copy of the class is untouched");
    }

    @Test
    void shouldRefuseBytesThatAreNeitherClassNorJar() {
        HsaException e = assertThrows(HsaException.class, () -> CodeObjectReader.fromBytes("not code".getBytes()));
        assertEquals(HsaStatus.INVALID_CODE_OBJECT, e.status());
    }

    @Test
    void shouldRefuseATruncatedClassFile() throws IOException {
        byte[] whole = classBytes(ReaderKernels.class);
        HsaException e = assertThrows(HsaException.class,
                () -> CodeObjectReader.fromBytes(Arrays.copyOf(whole, whole.length / 3)));
        assertEquals(HsaStatus.INVALID_CODE_OBJECT, e.status());
        assertTrue(e.getMessage().contains("truncated"), e.getMessage());
    }

    @Test
    void shouldRefuseAJarWithoutClasses() throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (JarOutputStream jar = new JarOutputStream(out)) {
            jar.putNextEntry(new JarEntry("README.txt"));
            jar.write("no code here".getBytes());
        }
        HsaException e = assertThrows(HsaException.class, () -> CodeObjectReader.fromBytes(out.toByteArray()));
        assertEquals(HsaStatus.INVALID_CODE_OBJECT, e.status());
    }

    @Test
    void shouldReportAMissingFileAsInvalidFile() {
        HsaException e = assertThrows(HsaException.class, () -> CodeObjectReader.fromFile(dir.resolve("absent.jar")));
        assertEquals(HsaStatus.INVALID_FILE, e.status());
    }

    @Test
    void shouldRefuseADestroyedReader() throws IOException {
        CodeObjectReader reader = CodeObjectReader.fromBytes(classBytes(ReaderKernels.class));
        reader.close();
        Executable exe = rt.createExecutable().defineGlobalVariable("counter", rt.hostMalloc(8));
        HsaException e = assertThrows(HsaException.class, () -> exe.loadCodeObject(reader));
        assertEquals(HsaStatus.INVALID_CODE_OBJECT_READER, e.status());
    }

    @Test
    void shouldFailTheDispatchNotTheLoadWhenAJarLacksAPackagePrivateHelper() throws IOException {
        // Missing classes resolve through the parent loader (a code object may call the
        // application's code); a package-private one is then in another runtime package.
        long counter = rt.hostMalloc(8);
        Executable exe = rt.createExecutable().defineGlobalVariable("counter", counter);
        exe.loadCodeObject(CodeObjectReader.fromBytes(jar(ReaderKernels.class))).freeze();
        assertThrows(HsaException.class, () -> dispatchAdd(exe, 1),
                "a package-private helper in another loader is not accessible, so the dispatch fails");
        assertEquals(0, rt.svm().getLong(counter));
    }

    @Test
    void shouldKeepTheBytesOfAReaderFromMemoryAsTheyWereGiven() throws IOException {
        byte[] bytes = classBytes(ReaderKernels.class);
        byte[] copy = bytes.clone();
        CodeObjectReader reader = CodeObjectReader.fromBytes(bytes);
        Arrays.fill(bytes, (byte) 0);
        Executable exe = rt.createExecutable().defineGlobalVariable("counter", rt.hostMalloc(8));
        exe.loadCodeObject(reader).freeze();
        assertEquals("addToCounter", exe.symbol("addToCounter").name());
        assertArrayEquals(copy, classBytes(ReaderKernels.class));
    }

    private void dispatchAdd(Executable exe, long delta) {
        long kernarg = rt.kernargPool().allocate(8);
        rt.svm().setLong(kernarg, delta);
        Queue q = rt.gpuAgent().createQueue(16, QueueType.SINGLE, null);
        Signal done = rt.createSignal(1);
        try {
            Submit.kernel(q, exe.symbol("addToCounter").kernelObject()).kernarg(kernarg).completion(done).submit();
            Await.completion(done);
        } finally {
            q.destroy();
        }
    }

    static byte[] classBytes(Class<?> c) throws IOException {
        try (InputStream in = c.getResourceAsStream(c.getSimpleName() + ".class")) {
            return in.readAllBytes();
        }
    }

    static byte[] jar(Class<?>... classes) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (JarOutputStream jar = new JarOutputStream(out)) {
            for (Class<?> c : classes) {
                jar.putNextEntry(new JarEntry(c.getName().replace('.', '/') + ".class"));
                jar.write(classBytes(c));
                jar.closeEntry();
            }
        }
        return out.toByteArray();
    }
}
