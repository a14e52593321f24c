package org.hsa4j.kernel;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.jar.JarEntry;
import java.util.jar.JarInputStream;

import org.hsa4j.status.HsaException;
import org.hsa4j.status.HsaStatus;

/**
 * {@code hsa_code_object_reader_t}: the bytes of a code object, read from a file or from memory,
 * for {@link Executable#loadAgentCodeObject(CodeObjectAgent, CodeObjectReader)}.
 *
 * <p>The format is told by the bytes ({@link #format()}): a worker-pool agent's ISA is the JVM, so
 * its code object is compiled Java, one class file ({@code 0xCAFEBABE}) or a jar of class files (a
 * zip); a CUDA agent's is PTX text, a cubin (ELF, machine EM_CUDA) or a fat binary
 * ({@code 0xBA55ED50}). Which agent loads it is the load's business: each agent refuses another
 * ISA's code object with INCOMPATIBLE_ARGUMENTS ({@link CodeObjectLoader}).
 *
 * <p>For compiled Java, every class with a {@link KernelSymbol} method contributes its kernels.
 * Each load defines the classes anew in a class loader of its own, so two executables loading one
 * reader get separate classes (and separate {@link ExternalVariable} fields), as two HSA
 * executables get separate copies of a code object's variables. The bytes are checked when the
 * reader is made: a truncated or foreign file is INVALID_CODE_OBJECT here, not at load.
 */
public final class CodeObjectReader implements AutoCloseable {
    private static final int CLASS_MAGIC = 0xCAFEBABE;

    private final String origin;
    private final CodeObjectFormat format;
    /** The code object's bytes, kept for an agent's loader. */
    private final byte[] bytes;
    /** For compiled Java: each class's bytes by binary name; empty for a device's code object. */
    private final Map<String, byte[]> classes;
    private final ClassLoader parent;
    private volatile boolean destroyed;

    private CodeObjectReader(String origin, CodeObjectFormat format, byte[] bytes, Map<String, byte[]> classes,
                             ClassLoader parent) {
        this.origin = origin;
        this.format = format;
        this.bytes = bytes;
        this.classes = classes;
        this.parent = parent;
    }

    /**
     * {@code hsa_code_object_reader_create_from_file}: reads a class file, jar, PTX, cubin or fat binary.
     *
     * @throws HsaException INVALID_FILE when the file cannot be read, INVALID_CODE_OBJECT when it
     *                      is none of those formats, or a truncated one
     */
    public static CodeObjectReader fromFile(Path file) {
        HsaException.requireNonNull(file, "file");
        byte[] bytes;
        try {
            bytes = Files.readAllBytes(file);
        } catch (NoSuchFileException e) {
            throw new HsaException(HsaStatus.INVALID_FILE, "no code object file " + file);
        } catch (IOException | SecurityException e) {
            throw new HsaException(HsaStatus.INVALID_FILE, "cannot read code object file " + file + ": " + e.getMessage());
        }
        return read(file.toString(), bytes, defaultParent());
    }

    /**
     * {@code hsa_code_object_reader_create_from_memory}: takes a copy of a code object's bytes.
     *
     * @throws HsaException INVALID_CODE_OBJECT when the bytes are no code object, or a truncated one
     */
    public static CodeObjectReader fromBytes(byte[] bytes) {
        HsaException.requireNonNull(bytes, "bytes");
        return read("memory (" + bytes.length + " bytes)", bytes.clone(), defaultParent());
    }

    /** As {@link #fromBytes(byte[])}, resolving the code object's references through {@code parent}. */
    public static CodeObjectReader fromBytes(byte[] bytes, ClassLoader parent) {
        HsaException.requireNonNull(bytes, "bytes");
        HsaException.requireNonNull(parent, "parent");
        return read("memory (" + bytes.length + " bytes)", bytes.clone(), parent);
    }

    /** Where the bytes came from, for messages. */
    public String origin() {
        return origin;
    }

    /** The code object's format, told by its bytes. */
    public CodeObjectFormat format() {
        return format;
    }

    /** A copy of the code object's bytes, as read: what an agent's {@link CodeObjectLoader} loads. */
    public byte[] bytes() {
        return bytes.clone();
    }

    /** The binary names of the classes the code object holds, in file order; empty for a device's code object. */
    public java.util.Set<String> classNames() {
        return java.util.Collections.unmodifiableSet(classes.keySet());
    }

    /** True once destroyed. */
    public boolean isDestroyed() {
        return destroyed;
    }

    /** {@code hsa_code_object_reader_destroy}; executables that loaded it keep their kernels. */
    @Override
    public void close() {
        destroyed = true;
    }

    /** Defines every class of the code object in a fresh loader and returns them, in file order. */
    Class<?>[] defineClasses() {
        checkLive();
        if (!format.isJvm()) {
            throw new HsaException(HsaStatus.INCOMPATIBLE_ARGUMENTS, "code object " + origin + " is " + format
                    + ", not compiled Java: load it for an agent of its ISA with loadAgentCodeObject(agent, reader)");
        }
        Loader loader = new Loader(parent, classes, origin);
        Class<?>[] out = new Class<?>[classes.size()];
        int i = 0;
        for (String name : classes.keySet()) {
            try {
                out[i++] = loader.loadClass(name);
            } catch (ClassNotFoundException | LinkageError e) {
                throw new HsaException(HsaStatus.INVALID_CODE_OBJECT, "code object " + origin + ": class " + name
                        + " cannot be defined: " + e, e);
            }
        }
        return out;
    }

    /**
     * Fails unless the reader is live.
     *
     * @throws HsaException INVALID_CODE_OBJECT_READER once destroyed
     */
    void checkLive() {
        if (destroyed) {
            throw new HsaException(HsaStatus.INVALID_CODE_OBJECT_READER, "the code object reader of " + origin
                    + " has been destroyed");
        }
    }

    private static ClassLoader defaultParent() {
        ClassLoader context = Thread.currentThread().getContextClassLoader();
        return context != null ? context : CodeObjectReader.class.getClassLoader();
    }

    private static CodeObjectReader read(String origin, byte[] bytes, ClassLoader parent) {
        Map<String, byte[]> classes = new LinkedHashMap<>();
        CodeObjectFormat format;
        if (bytes.length >= 4 && readInt(bytes, 0) == CLASS_MAGIC) {
            format = CodeObjectFormat.CLASS_FILE;
            classes.put(ClassFiles.binaryName(bytes, origin), bytes);
        } else if (NativeImages.claims(bytes)) {
            return new CodeObjectReader(origin, NativeImages.check(bytes, origin), bytes, Map.of(), parent);
        } else if (bytes.length >= 4 && bytes[0] == 'P' && bytes[1] == 'K') {
            format = CodeObjectFormat.JAR;
            try (JarInputStream jar = new JarInputStream(new ByteArrayInputStream(bytes))) {
                for (JarEntry e; (e = jar.getNextJarEntry()) != null; ) {
                    if (!e.isDirectory() && e.getName().endsWith(".class") && !e.getName().endsWith("module-info.class")) {
                        byte[] b = jar.readAllBytes();
                        classes.put(ClassFiles.binaryName(b, origin + "!" + e.getName()), b);
                    }
                }
            } catch (IOException e) {
                throw new HsaException(HsaStatus.INVALID_CODE_OBJECT, "code object " + origin + " is a broken jar: "
                        + e.getMessage());
            }
        } else {
            throw new HsaException(HsaStatus.INVALID_CODE_OBJECT, "code object " + origin
                    + " is none of a class file, a jar, PTX, a cubin or a fat binary");
        }
        if (classes.isEmpty()) {
            throw new HsaException(HsaStatus.INVALID_CODE_OBJECT, "code object " + origin + " holds no class");
        }
        return new CodeObjectReader(origin, format, bytes, classes, parent);
    }

    private static int readInt(byte[] b, int at) {
        return (b[at] & 0xff) << 24 | (b[at + 1] & 0xff) << 16 | (b[at + 2] & 0xff) << 8 | (b[at + 3] & 0xff);
    }

    /** Defines the code object's classes on demand; everything else comes from the parent. */
    private static final class Loader extends ClassLoader {
        private final Map<String, byte[]> classes;

        Loader(ClassLoader parent, Map<String, byte[]> classes, String origin) {
            super("hsa4j-code-object[" + origin + "]", parent);
            this.classes = classes;
        }

        @Override
        protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
            synchronized (getClassLoadingLock(name)) {
                Class<?> c = findLoadedClass(name);
                if (c == null && classes.containsKey(name)) {
                    c = findClass(name); // the code object's own copy wins over a parent's class of the same name
                }
                if (c == null) {
                    return super.loadClass(name, resolve);
                }
                if (resolve) {
                    resolveClass(c);
                }
                return c;
            }
        }

        @Override
        protected Class<?> findClass(String name) throws ClassNotFoundException {
            byte[] b = classes.get(name);
            if (b == null) {
                throw new ClassNotFoundException(name);
            }
            return defineClass(name, b, 0, b.length);
        }
    }
}
