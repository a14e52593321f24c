package org.hsa4j.cuda;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Pattern;

import org.hsa4j.status.HsaException;
import org.hsa4j.status.HsaStatus;

/**
 * The kernels a GPU-resident queue runs ({@link CudaAgent#createResidentQueue}): resident kernels
 * ({@code __device__ void NAME(const void* kernarg, const hsa4j_item& it)}, see
 * {@code hsa4j_resident_prelude.cu}) compiled together with the processor kernel into one module,
 * the built-in ones ({@link #BUILTIN}) first. A kernel object is a handle with tag 0xC0DB, this
 * program's id and the kernel's index in the table; the processor refuses any other with
 * INVALID_PACKET_FORMAT on the queue's error callback.
 *
 * <p>{@link #builtin} loads the checked-in PTX ({@code hsa4j_resident.ptx}, nvcc, no NVRTC needed);
 * {@link #compile} adds the caller's kernels through NVRTC.
 */
public final class CudaResidentProgram {
    /** The built-in kernels, in table order (their indices are their kernel objects' low bits). */
    public static final List<String> BUILTIN = List.of("hsa4j_r_empty", "hsa4j_r_vector_add", "hsa4j_r_twice",
            "hsa4j_r_step", "hsa4j_r_hold");
    /** The processor kernel's symbol. */
    static final String PROCESSOR = "hsa4j_resident_processor";
    static final String DIR = "org/hsa4j/cuda/kernels/";
    static final String PRELUDE = DIR + "hsa4j_resident_prelude.cu";
    static final String BUILTIN_CU = DIR + "hsa4j_resident_builtin.cu";
    static final String PROCESSOR_CU = DIR + "hsa4j_resident.cu";
    /** The built-in program as nvcc made it: {@code nvcc -arch=sm_90 -ptx} of {@link #source(String, List)} with no kernels of the caller. */
    static final String BUILTIN_PTX = DIR + "hsa4j_resident.ptx";

    private static final Pattern NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");
    private static final AtomicInteger IDS = new AtomicInteger();

    private final CudaAgent agent;
    private final CudaModule module;
    private final int id;
    private final Map<String, Integer> kernels;

    private CudaResidentProgram(CudaAgent agent, CudaModule module, List<String> names) {
        this.agent = agent;
        this.module = module;
        this.id = IDS.incrementAndGet() % 0xFFFF + 1;
        this.kernels = new LinkedHashMap<>();
        for (int i = 0; i < names.size(); i++) {
            kernels.put(names.get(i), i);
        }
    }

    /** The built-in kernels on {@code agent}, from the checked-in PTX. */
    public static CudaResidentProgram builtin(CudaAgent agent) {
        CudaModule m = agent.load(CudaCodeObject.fromResource(BUILTIN_PTX));
        return new CudaResidentProgram(agent, m, BUILTIN);
    }

    /**
     * The built-in kernels and the caller's: {@code source} defines the resident kernels named
     * {@code kernels} (it may use the prelude's types and helpers), compiled with NVRTC.
     *
     * @throws HsaException INVALID_ARGUMENT for a bad or repeated name, INVALID_CODE_OBJECT with
     *                      the compiler log when it does not compile (or NVRTC is absent)
     */
    public static CudaResidentProgram compile(CudaAgent agent, String source, String... kernels) {
        Objects.requireNonNull(source, "source");
        List<String> names = new ArrayList<>(BUILTIN);
        for (String k : kernels) {
            if (k == null || !NAME.matcher(k).matches() || names.contains(k)) {
                throw new HsaException(HsaStatus.INVALID_ARGUMENT, "resident kernel name '" + k
                        + "' is not a C identifier or is given twice (built-ins: " + BUILTIN + ")");
            }
            names.add(k);
        }
        CudaModule m = agent.compile(source(source, names.subList(BUILTIN.size(), names.size())), "hsa4j_resident_program.cu");
        return new CudaResidentProgram(agent, m, names);
    }

    /** The built-in kernels from a code object built elsewhere (PTX, cubin or fatbin of {@link #source}): for experiments. */
    static CudaResidentProgram fromCodeObject(CudaAgent agent, CudaCodeObject code) {
        return new CudaResidentProgram(agent, agent.load(code), BUILTIN);
    }

    /** The built-in kernels over another processor's source (a variant of {@code hsa4j_resident.cu}), compiled with NVRTC: for experiments. */
    static CudaResidentProgram withProcessor(CudaAgent agent, String processorSource) {
        return new CudaResidentProgram(agent, agent.compile(source("", List.of(), processorSource), "hsa4j_resident_variant.cu"),
                BUILTIN);
    }

    /**
     * The one translation unit: prelude, built-in kernels, {@code userSource}, the table over the
     * built-ins then {@code userKernels}, the processor.
     */
    static String source(String userSource, List<String> userKernels) {
        return source(userSource, userKernels, resource(PROCESSOR_CU));
    }

    /** As {@link #source(String, List)} with {@code processor} in place of {@code hsa4j_resident.cu}. */
    private static String source(String userSource, List<String> userKernels, String processor) {
        List<String> all = new ArrayList<>(BUILTIN);
        all.addAll(userKernels);
        StringBuilder s = new StringBuilder();
        s.append(resource(PRELUDE)).append('\n');
        s.append(resource(BUILTIN_CU)).append('\n');
        if (!userSource.isEmpty()) {
            s.append("// ---- the program's own kernels\n").append(userSource).append('\n');
        }
        s.append(table(all)).append('\n');
        s.append(processor);
        return s.toString();
    }

    /** The generated kernel table: {@code HSA4J_RESIDENT_KERNEL_COUNT} and the switch the processor calls through. */
    static String table(List<String> names) {
        StringBuilder s = new StringBuilder();
        s.append("// ---- generated by CudaResidentProgram: kernel object low bits -> kernel\n");
        s.append("#define HSA4J_RESIDENT_KERNEL_COUNT ").append(names.size()).append('\n');
        s.append("static __device__ __forceinline__ void hsa4j_resident_call(hsa4j_u32 index, const void* kernarg, "
                + "const hsa4j_item& it) {\n    switch (index) {\n");
        for (int i = 0; i < names.size(); i++) {
            s.append("    case ").append(i).append(": ").append(names.get(i)).append("(kernarg, it); break;\n");
        }
        s.append("    default: break;\n    }\n}\n");
        return s.toString();
    }

    static String resource(String name) {
        try (InputStream in = CudaResidentProgram.class.getClassLoader().getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException("resource " + name + " is missing from the class path");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * The kernel object of resident kernel {@code name} (for {@code KernelDispatchPacket.kernelObject}).
     *
     * @throws HsaException INVALID_SYMBOL_NAME when the program has no such kernel
     */
    public long kernelObject(String name) {
        Integer i = kernels.get(name);
        if (i == null) {
            throw new HsaException(HsaStatus.INVALID_SYMBOL_NAME, "resident program " + id + " has no kernel " + name
                    + " (it has " + kernels.keySet() + ")");
        }
        return ResidentLayout.kernelObject(id, i);
    }

    /** The kernels' names, in table order. */
    public List<String> kernels() {
        return List.copyOf(kernels.keySet());
    }

    /** The agent it was loaded on. */
    public CudaAgent agent() {
        return agent;
    }

    int id() {
        return id;
    }

    CudaModule module() {
        return module;
    }

    @Override
    public String toString() {
        return "CudaResidentProgram[" + id + ", " + kernels.keySet() + "]";
    }
}
