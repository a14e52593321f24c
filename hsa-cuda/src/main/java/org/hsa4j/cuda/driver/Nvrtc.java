package org.hsa4j.cuda.driver;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.util.List;

import org.hsa4j.status.HsaException;
import org.hsa4j.status.HsaStatus;

/**
 * NVRTC, the CUDA C runtime compiler ({@code libnvrtc.so.13}), bound through java.lang.foreign: the
 * role of the HSA finalizer extension (source to device code at run time). Optional: machines
 * without it get a {@link Load#reason} and code objects must come prebuilt.
 *
 * <p>{@link #compile} is the whole protocol: create the program, compile with options, read the log,
 * read the cubin (for a real architecture, {@code sm_XY}) or the PTX (for a virtual one,
 * {@code compute_XY}), destroy the program. A failed compilation is INVALID_CODE_OBJECT with the
 * compiler's log in the message.
 */
public final class Nvrtc {
    /** The library of CUDA 13. */
    public static final String LIBRARY = "libnvrtc.so.13";
    private static final int NVRTC_SUCCESS = 0;

    /** The outcome of loading NVRTC: the compiler, or why there is none. */
    public record Load(Nvrtc nvrtc, String reason) {
        /** True when NVRTC loaded. */
        public boolean available() {
            return nvrtc != null;
        }
    }

    /** A compiled program: its image (cubin or PTX, NUL-terminated for PTX) and the compiler log. */
    public record Output(byte[] image, boolean ptx, String log) {
    }

    private final MethodHandle create;
    private final MethodHandle compile;
    private final MethodHandle logSize;
    private final MethodHandle log;
    private final MethodHandle ptxSize;
    private final MethodHandle ptx;
    private final MethodHandle cubinSize;
    private final MethodHandle cubin;
    private final MethodHandle destroy;
    private final MethodHandle errorString;
    private final MethodHandle version;

    private Nvrtc(SymbolLookup l) {
        create = bind(l, "nvrtcCreateProgram", ADDRESS, ADDRESS, ADDRESS, JAVA_INT, ADDRESS, ADDRESS);
        compile = bind(l, "nvrtcCompileProgram", ADDRESS, JAVA_INT, ADDRESS);
        logSize = bind(l, "nvrtcGetProgramLogSize", ADDRESS, ADDRESS);
        log = bind(l, "nvrtcGetProgramLog", ADDRESS, ADDRESS);
        ptxSize = bind(l, "nvrtcGetPTXSize", ADDRESS, ADDRESS);
        ptx = bind(l, "nvrtcGetPTX", ADDRESS, ADDRESS);
        cubinSize = bind(l, "nvrtcGetCUBINSize", ADDRESS, ADDRESS);
        cubin = bind(l, "nvrtcGetCUBIN", ADDRESS, ADDRESS);
        destroy = bind(l, "nvrtcDestroyProgram", ADDRESS);
        errorString = Linker.nativeLinker().downcallHandle(find(l, "nvrtcGetErrorString"),
                FunctionDescriptor.of(ADDRESS, JAVA_INT));
        version = bind(l, "nvrtcVersion", ADDRESS, ADDRESS);
    }

    /** Loads {@link #LIBRARY}; never throws. */
    public static Load load() {
        return load(LIBRARY);
    }

    /** Loads NVRTC from {@code library}; never throws. */
    public static Load load(String library) {
        try {
            return new Load(new Nvrtc(SymbolLookup.libraryLookup(library, Arena.global())), null);
        } catch (IllegalArgumentException | IllegalCallerException e) {
            return new Load(null, library + " cannot be loaded (" + e.getMessage() + ")");
        } catch (IllegalStateException e) {
            return new Load(null, library + " lacks " + e.getMessage());
        }
    }

    private static MemorySegment find(SymbolLookup l, String symbol) {
        return l.find(symbol).orElseThrow(() -> new IllegalStateException("the entry point " + symbol));
    }

    private static MethodHandle bind(SymbolLookup l, String symbol, java.lang.foreign.MemoryLayout... args) {
        return Linker.nativeLinker().downcallHandle(find(l, symbol), FunctionDescriptor.of(JAVA_INT, args));
    }

    /** NVRTC's version as {@code major.minor}. */
    public String version() {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment major = a.allocate(JAVA_INT);
            MemorySegment minor = a.allocate(JAVA_INT);
            int rc = (int) version.invokeExact(major, minor);
            return rc == NVRTC_SUCCESS ? major.get(JAVA_INT, 0) + "." + minor.get(JAVA_INT, 0) : "unknown";
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * Compiles CUDA C {@code source} (named {@code name} in messages) with NVRTC {@code options}
     * (e.g. {@code --gpu-architecture=sm_90}); a real architecture gives a cubin, a virtual one PTX.
     *
     * @throws HsaException INVALID_CODE_OBJECT with the compiler log when compilation fails
     */
    public Output compile(String source, String name, List<String> options) {
        boolean wantPtx = options.stream().anyMatch(o -> o.contains("compute_"));
        try (Arena a = Arena.ofConfined()) {
            MemorySegment prog = a.allocate(ADDRESS);
            ok((int) create.invokeExact(prog, a.allocateFrom(source), a.allocateFrom(name), 0,
                    MemorySegment.NULL, MemorySegment.NULL), "nvrtcCreateProgram");
            MemorySegment p = prog.get(ADDRESS, 0);
            try {
                MemorySegment opts = a.allocate(ADDRESS, Math.max(1, options.size()));
                for (int i = 0; i < options.size(); i++) {
                    opts.setAtIndex(ADDRESS, i, a.allocateFrom(options.get(i)));
                }
                int rc = (int) compile.invokeExact(p, options.size(), opts);
                String text = programLog(a, p);
                if (rc != NVRTC_SUCCESS) {
                    throw new HsaException(HsaStatus.INVALID_CODE_OBJECT, "NVRTC could not compile " + name + ": "
                            + error(rc) + "\n" + text);
                }
                MemorySegment size = a.allocate(JAVA_LONG);
                ok((int) (wantPtx ? ptxSize : cubinSize).invokeExact(p, size), "nvrtcGetSize");
                MemorySegment image = a.allocate(Math.max(1, size.get(JAVA_LONG, 0)));
                ok((int) (wantPtx ? ptx : cubin).invokeExact(p, image), "nvrtcGetImage");
                return new Output(image.toArray(java.lang.foreign.ValueLayout.JAVA_BYTE), wantPtx, text);
            } finally {
                int ignored = (int) destroy.invokeExact(prog);
            }
        } catch (HsaException e) {
            throw e;
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private String programLog(Arena a, MemorySegment p) throws Throwable {
        MemorySegment size = a.allocate(JAVA_LONG);
        if ((int) logSize.invokeExact(p, size) != NVRTC_SUCCESS || size.get(JAVA_LONG, 0) <= 1) {
            return "";
        }
        MemorySegment text = a.allocate(size.get(JAVA_LONG, 0));
        int rc = (int) log.invokeExact(p, text);
        return rc == NVRTC_SUCCESS ? text.getString(0).strip() : "";
    }

    private void ok(int rc, String call) {
        if (rc != NVRTC_SUCCESS) {
            throw new HsaException(HsaStatus.INVALID_CODE_OBJECT, call + " failed: " + error(rc));
        }
    }

    private String error(int rc) {
        try {
            MemorySegment s = (MemorySegment) errorString.invokeExact(rc);
            return s.equals(MemorySegment.NULL) ? "NVRTC error " + rc : s.reinterpret(256).getString(0) + " (" + rc + ")";
        } catch (Throwable t) {
            return "NVRTC error " + rc;
        }
    }

    private static RuntimeException rethrow(Throwable t) {
        if (t instanceof Error e) {
            throw e;
        }
        if (t instanceof RuntimeException r) {
            return r;
        }
        return new HsaException(HsaStatus.ERROR, "NVRTC call threw " + t, t);
    }
}
