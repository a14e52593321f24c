package org.hsa4j.cuda;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.hsa4j.cuda.driver.CuResult;
import org.hsa4j.cuda.driver.CudaDriver;
import org.hsa4j.status.HsaException;
import org.hsa4j.status.HsaStatus;

/**
 * A code object loaded into a CUDA agent (the spec's executable with its code object loaded):
 * kernels are looked up by symbol. The module keeps its code object, so after the agent recreates
 * its context the module loads itself again on first use, and kernel objects stay valid.
 */
public final class CudaModule {
    // CUjit_option values (cuda.h)
    private static final int JIT_INFO_LOG_BUFFER = 3;
    private static final int JIT_INFO_LOG_BUFFER_SIZE_BYTES = 4;
    private static final int JIT_ERROR_LOG_BUFFER = 5;
    private static final int JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6;
    private static final int LOG_BYTES = 16 * 1024;
    // CUfunction_attribute values (cuda.h)
    private static final int FUNC_MAX_THREADS_PER_BLOCK = 0;
    private static final int FUNC_SHARED_SIZE_BYTES = 1;
    private static final int FUNC_LOCAL_SIZE_BYTES = 3;

    private final CudaAgent agent;
    private final CudaCodeObject code;
    private final Map<String, CudaKernel> kernels = new ConcurrentHashMap<>();
    private MemorySegment module;
    private int loadedGeneration = -1;
    private String infoLog = "";
    private volatile boolean unloaded;

    /** The agent this module is loaded into. */
    CudaAgent agent() {
        return agent;
    }

    CudaModule(CudaAgent agent, CudaCodeObject code) {
        this.agent = agent;
        this.code = code;
        agent.context().enter();
        try {
            handle();
        } finally {
            agent.context().exit();
        }
    }

    /** The code object. */
    public CudaCodeObject codeObject() {
        return code;
    }

    /** What the JIT compiler said while loading (warnings), possibly empty. */
    public synchronized String infoLog() {
        return infoLog;
    }

    /**
     * The kernel {@code symbol} ({@code hsa_executable_get_symbol_by_name}).
     *
     * @throws HsaException INVALID_SYMBOL_NAME when the module has no such kernel
     */
    public CudaKernel kernel(String symbol) {
        CudaKernel k = kernels.get(symbol);
        if (k != null) {
            return k;
        }
        agent.checkInProcess("looking up kernel " + symbol + " (kernels looked up before the fault keep working)");
        CudaContext ctx = agent.context();
        ctx.enter();
        try {
            MemorySegment f = function(symbol);
            CudaDriver d = ctx.driver();
            try (Arena a = Arena.ofConfined()) {
                MemorySegment v = a.allocate(JAVA_INT);
                d.check(d.cuFuncGetAttribute(v, FUNC_MAX_THREADS_PER_BLOCK, f), "cuFuncGetAttribute");
                int maxThreads = v.get(JAVA_INT, 0);
                d.check(d.cuFuncGetAttribute(v, FUNC_SHARED_SIZE_BYTES, f), "cuFuncGetAttribute");
                int shared = v.get(JAVA_INT, 0);
                d.check(d.cuFuncGetAttribute(v, FUNC_LOCAL_SIZE_BYTES, f), "cuFuncGetAttribute");
                int local = v.get(JAVA_INT, 0);
                KernargLayout layout = layout(d, a, f, symbol);
                return kernels.computeIfAbsent(symbol, s -> agent.register(new CudaKernel(this, s, layout, shared,
                        maxThreads, local)));
            }
        } finally {
            ctx.exit();
        }
    }

    /**
     * The names of the module's kernels ({@code hsa_executable_iterate_symbols}): PTX's entries as
     * the text declares them, a cubin's or fat binary's as the driver lists them.
     *
     * @throws HsaException INCOMPATIBLE_ARGUMENTS when the code object is binary and the driver
     *                      cannot list kernels (it lacks {@code cuModuleEnumerateFunctions}, CUDA 12.4)
     */
    public List<String> kernelNames() {
        if (code.format() == CudaCodeObject.Format.PTX) {
            return code.ptxEntryNames();
        }
        CudaContext ctx = agent.context();
        ctx.enter();
        try (Arena a = Arena.ofConfined()) {
            CudaDriver d = ctx.driver();
            if (!d.hasFunctionEnumeration()) {
                throw new HsaException(HsaStatus.INCOMPATIBLE_ARGUMENTS, "cannot list the kernels of " + code.name()
                        + " (" + code.format() + "): the driver lacks cuModuleEnumerateFunctions (CUDA 12.4); look "
                        + "kernels up by name with CudaAgent.load(code).kernel(name)");
            }
            MemorySegment count = a.allocate(JAVA_INT);
            d.check(d.cuModuleGetFunctionCount(count, handle()), "cuModuleGetFunctionCount");
            int n = count.get(JAVA_INT, 0);
            List<String> names = new ArrayList<>(n);
            if (n == 0) {
                return names;
            }
            MemorySegment functions = a.allocate(ADDRESS, n);
            d.check(d.cuModuleEnumerateFunctions(functions, n, handle()), "cuModuleEnumerateFunctions");
            MemorySegment name = a.allocate(ADDRESS);
            for (int i = 0; i < n; i++) {
                d.check(d.cuFuncGetName(name, functions.getAtIndex(ADDRESS, i)), "cuFuncGetName");
                names.add(name.get(ADDRESS, 0).reinterpret(Integer.MAX_VALUE).getString(0));
            }
            return names;
        } finally {
            ctx.exit();
        }
    }

    private KernargLayout layout(CudaDriver d, Arena a, MemorySegment f, String symbol) {
        if (d.hasParamInfo()) {
            MemorySegment off = a.allocate(JAVA_LONG);
            MemorySegment size = a.allocate(JAVA_LONG);
            List<long[]> params = new ArrayList<>();
            for (long i = 0; ; i++) {
                int rc = d.cuFuncGetParamInfo(f, i, off, size);
                if (rc == CuResult.INVALID_VALUE) {
                    return KernargLayout.fromDriver(params);
                }
                if (rc != CuResult.SUCCESS) {
                    break;
                }
                params.add(new long[] {off.get(JAVA_LONG, 0), size.get(JAVA_LONG, 0)});
            }
        }
        KernargLayout fromPtx = code.ptxEntries().get(symbol);
        if (fromPtx == null) {
            throw new HsaException(HsaStatus.INVALID_CODE_OBJECT, "cannot tell the kernarg layout of " + symbol
                    + " in " + code.name() + ": the driver has no cuFuncGetParamInfo and the code object is not PTX");
        }
        return fromPtx;
    }

    /** The CUfunction of {@code symbol} in the current generation; call inside the context. */
    MemorySegment function(String symbol) {
        CudaDriver d = agent.context().driver();
        try (Arena a = Arena.ofConfined()) {
            MemorySegment out = a.allocate(ADDRESS);
            int rc = d.cuModuleGetFunction(out, handle(), a.allocateFrom(symbol));
            if (rc == CuResult.NOT_FOUND) {
                throw new HsaException(HsaStatus.INVALID_SYMBOL_NAME, "no kernel " + symbol + " in " + code.name()
                        + (code.ptxEntries().isEmpty() ? "" : " (its entries: " + code.ptxEntryNames() + ")"));
            }
            d.check(rc, "cuModuleGetFunction(" + symbol + ")");
            return out.get(ADDRESS, 0);
        }
    }

    /** The CUmodule of the current generation, loading it when the context is new; call inside the context. */
    synchronized MemorySegment handle() {
        if (unloaded) {
            throw new HsaException(HsaStatus.INVALID_EXECUTABLE, code.name() + " has been unloaded");
        }
        int gen = agent.context().generation();
        if (loadedGeneration == gen) {
            return module;
        }
        CudaDriver d = agent.context().driver();
        try (Arena a = Arena.ofConfined()) {
            MemorySegment info = a.allocate(LOG_BYTES);
            MemorySegment error = a.allocate(LOG_BYTES);
            MemorySegment keys = a.allocateFrom(JAVA_INT, JIT_INFO_LOG_BUFFER, JIT_INFO_LOG_BUFFER_SIZE_BYTES,
                    JIT_ERROR_LOG_BUFFER, JIT_ERROR_LOG_BUFFER_SIZE_BYTES);
            MemorySegment values = a.allocate(ADDRESS, 4);
            values.setAtIndex(ADDRESS, 0, info);
            values.setAtIndex(ADDRESS, 1, MemorySegment.ofAddress(LOG_BYTES));
            values.setAtIndex(ADDRESS, 2, error);
            values.setAtIndex(ADDRESS, 3, MemorySegment.ofAddress(LOG_BYTES));
            byte[] bytes = code.imageUnsafe();
            MemorySegment image = a.allocate(bytes.length, 64);
            image.copyFrom(MemorySegment.ofArray(bytes));
            MemorySegment out = a.allocate(ADDRESS);
            int rc = d.cuModuleLoadDataEx(out, image, 4, keys, values);
            if (rc != CuResult.SUCCESS) {
                String log = error.getString(0).strip();
                throw new HsaException(CuResult.toStatus(rc) == HsaStatus.ERROR ? HsaStatus.INVALID_CODE_OBJECT
                        : CuResult.toStatus(rc), "cuModuleLoadDataEx of " + code.name() + " (" + code.format()
                        + ") failed: " + d.errorName(rc) + " (" + rc + ")" + (log.isEmpty() ? "" : "\n" + log));
            }
            module = out.get(ADDRESS, 0);
            infoLog = info.getString(0).strip();
            loadedGeneration = gen;
            return module;
        }
    }

    /** Unloads the module; its kernels become invalid kernel objects. */
    public synchronized void unload() {
        if (unloaded) {
            return;
        }
        unloaded = true;
        for (CudaKernel k : kernels.values()) {
            agent.unregister(k);
        }
        CudaContext ctx = agent.context();
        ctx.enter();
        try {
            if (loadedGeneration == ctx.generation()) {
                ctx.driver().cuModuleUnload(module);
            }
        } finally {
            ctx.exit();
        }
    }

    @Override
    public String toString() {
        return "CudaModule[" + code.name() + "]";
    }
}
