package org.hsa4j.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.hsa4j.runtime.HsaRuntime;
import org.hsa4j.services.Services;
import org.hsa4j.services.ServicesConfig;
import org.hsa4j.services.memory.HeapStatus;
import org.hsa4j.services.memory.MemoryOp;
import org.hsa4j.services.printf.PrintfArgs;
import org.hsa4j.services.printf.PrintfService;
import org.hsa4j.services.rpc.Opcodes;
import org.hsa4j.services.rpc.RpcLayout;
import org.hsa4j.services.rpc.RpcStatus;
import org.hsa4j.services.syscall.Clocks;
import org.hsa4j.services.syscall.Errno;
import org.hsa4j.services.syscall.OpenFlags;
import org.hsa4j.services.syscall.Syscall;
import org.hsa4j.status.HsaException;
import org.hsa4j.status.HsaStatus;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The CUDA client header {@code hsa4j_rpc.cuh} against the Java side of the protocol, on any
 * machine: every constant the header defines equals the one RpcLayout, RpcStatus, the opcodes and
 * the syscall values name, every RpcLayout constant is in the header, and the kernels that use it
 * compile with nvcc where it is installed and match the PTX checked in.
 */
class CudaRpcHeaderTest {
    private static final Pattern DEFINE = Pattern.compile("^#define (HSA4J_\\w+) \\(?([-\\w']+)\\)?u?\\s*$", Pattern.MULTILINE);

    private static Map<String, Long> defines() {
        Map<String, Long> out = new HashMap<>();
        Matcher m = DEFINE.matcher(CudaRpc.header());
        while (m.find()) {
            out.put(m.group(1), parse(m.group(2)));
        }
        return out;
    }

    private static Long parse(String v) {
        if (v.startsWith("'")) {
            return (long) v.charAt(1);
        }
        String s = v.endsWith("u") ? v.substring(0, v.length() - 1) : v;
        if (s.startsWith("0x")) {
            return Long.parseLong(s.substring(2), 16);
        }
        if (s.length() > 1 && s.startsWith("0")) {
            return Long.parseLong(s.substring(1), 8);
        }
        try {
            return Long.parseLong(s);
        } catch (NumberFormatException e) {
            return null; // an expression such as (1ull << 30): not a layout constant
        }
    }

    private static long define(Map<String, Long> d, String name) {
        Long v = d.get(name);
        assertNotNull(v, "hsa4j_rpc.cuh defines no " + name);
        return v;
    }

    @Test
    void everyRpcLayoutConstantIsInTheHeaderWithTheSameValue() throws IllegalAccessException {
        Map<String, Long> d = defines();
        int checked = 0;
        for (Field f : RpcLayout.class.getFields()) {
            if (!Modifier.isStatic(f.getModifiers()) || !(f.getType() == long.class || f.getType() == int.class)) {
                continue;
            }
            long value = ((Number) f.get(null)).longValue();
            assertEquals(value, define(d, "HSA4J_RPC_" + f.getName()), "HSA4J_RPC_" + f.getName() + " against RpcLayout." + f.getName());
            checked++;
        }
        assertTrue(checked >= 35, "checked " + checked + " RpcLayout constants");
    }

    @Test
    void theHeadersStatusesAreRpcStatusCodes() {
        Map<String, Long> d = defines();
        for (RpcStatus s : RpcStatus.values()) {
            assertEquals(s.code(), define(d, "HSA4J_RPC_STATUS_" + s.name()), s.name());
        }
        assertEquals(RpcStatus.FINAL_BIT & 0xFFFFFFFFL, define(d, "HSA4J_RPC_FINAL_BIT"));
        assertEquals(RpcStatus.CONTINUE_WORD, define(d, "HSA4J_RPC_CONTINUE_WORD"));
    }

    @Test
    void theHeadersOpcodesAreTheServicesOpcodes() {
        Map<String, Long> d = defines();
        assertEquals(Opcodes.NOP, define(d, "HSA4J_OP_NOP"));
        assertEquals(Opcodes.ECHO, define(d, "HSA4J_OP_ECHO"));
        for (Syscall s : List.of(Syscall.OPEN, Syscall.CLOSE, Syscall.READ, Syscall.WRITE, Syscall.PREAD, Syscall.PWRITE,
                Syscall.CLOCK_GETTIME, Syscall.GETPID)) {
            assertEquals(s.opcode(), define(d, "HSA4J_OP_SYS_" + s.name()), s.name());
        }
        assertEquals(MemoryOp.MALLOC, define(d, "HSA4J_OP_MALLOC"));
        assertEquals(MemoryOp.FREE, define(d, "HSA4J_OP_FREE"));
        assertEquals(MemoryOp.CALLOC, define(d, "HSA4J_OP_CALLOC"));
        assertEquals(PrintfService.PRINTF, define(d, "HSA4J_OP_PRINTF"));
    }

    @Test
    void theHeadersSyscallValuesArePosixAsTheServicesSeeThem() {
        Map<String, Long> d = defines();
        assertEquals(OpenFlags.O_WRONLY, define(d, "HSA4J_O_WRONLY"));
        assertEquals(OpenFlags.O_RDWR, define(d, "HSA4J_O_RDWR"));
        assertEquals(OpenFlags.O_CREAT, define(d, "HSA4J_O_CREAT"));
        assertEquals(OpenFlags.O_TRUNC, define(d, "HSA4J_O_TRUNC"));
        assertEquals(Clocks.CLOCK_REALTIME, define(d, "HSA4J_CLOCK_REALTIME"));
        assertEquals(Clocks.CLOCK_MONOTONIC, define(d, "HSA4J_CLOCK_MONOTONIC"));
        assertEquals(Errno.EIO, define(d, "HSA4J_EIO"));
        assertEquals(Errno.ENOSYS, define(d, "HSA4J_ENOSYS"));
        assertEquals(Errno.ETIMEDOUT, define(d, "HSA4J_ETIMEDOUT"));
        assertEquals(PrintfArgs.INTEGER, define(d, "HSA4J_PRINTF_INTEGER"));
        assertEquals(PrintfArgs.DOUBLE, define(d, "HSA4J_PRINTF_DOUBLE"));
        assertEquals(PrintfArgs.STRING, define(d, "HSA4J_PRINTF_STRING"));
        assertEquals(HeapStatus.UNAVAILABLE, -6, "hsa4j_free's failed-call status");
    }

    @Test
    void cudaRpcsCopyOfTheSetHeaderOffsetsAndVersionIsRpcLayouts() throws ReflectiveOperationException {
        assertEquals(RpcLayout.VERSION_VALUE, CudaRpc.VERSION);
        for (String name : List.of("SET_MAGIC", "SET_VERSION", "SET_LANES", "SET_PORTS_OFFSET", "SET_PORT_STRIDE",
                "SET_DEVICE_FIRST", "SET_DEVICE_PORTS", "MAGIC_VALUE")) {
            Field mine = CudaRpc.class.getDeclaredField(name);
            mine.setAccessible(true);
            assertEquals(((Number) RpcLayout.class.getField(name).get(null)).longValue(), ((Number) mine.get(null)).longValue(), name);
        }
    }

    @Test
    void aContextIsWrittenOnlyForAPortSetOfThisLayoutWithDevicePorts() {
        try (HsaRuntime rt = HsaRuntime.init()) {
            long none = rt.hostMalloc(4096);
            long ctx = rt.hostMalloc(CudaRpc.CTX_BYTES);
            HsaException e = assertThrows(HsaException.class, () -> CudaRpc.writeContext(rt.svm(), ctx, none, null, 10));
            assertEquals(HsaStatus.INVALID_ARGUMENT, e.status());
            assertTrue(e.getMessage().contains("not an RPC port set of layout version " + RpcLayout.VERSION_VALUE), e.getMessage());
            try (Services hostOnly = Services.start(rt, ServicesConfig.builder().ports(2).build())) {
                e = assertThrows(HsaException.class,
                        () -> CudaRpc.writeContext(rt.svm(), ctx, hostOnly.ports().address(), null, 10));
                assertEquals(HsaStatus.INVALID_ARGUMENT, e.status());
                assertTrue(e.getMessage().contains("0 device ports"), e.getMessage());
            }
        }
    }

    @Test
    void theClientErrorCodesAreCudaRpcs() {
        String h = CudaRpc.header();
        assertTrue(h.contains("#define HSA4J_RPC_E_SPIN (" + CudaRpc.E_SPIN + ")"));
        assertTrue(h.contains("#define HSA4J_RPC_E_CLOSED (" + CudaRpc.E_CLOSED + ")"));
        assertTrue(h.contains("#define HSA4J_RPC_E_LAYOUT (" + CudaRpc.E_LAYOUT + ")"));
        assertTrue(h.contains("#define HSA4J_RPC_E_PAYLOAD (" + CudaRpc.E_PAYLOAD + ")"));
    }

    @Test
    void theContextStructHasCudaRpcsOffsets() {
        String h = CudaRpc.header();
        Matcher m = Pattern.compile("struct hsa4j_rpc_ctx \\{(.*?)\\};", Pattern.DOTALL).matcher(h);
        assertTrue(m.find(), "hsa4j_rpc_ctx in the header");
        List<String> fields = new ArrayList<>();
        Matcher f = Pattern.compile("(unsigned long long|unsigned int|long long) (\\w+);").matcher(m.group(1));
        long at = 0;
        Map<String, Long> offsets = new HashMap<>();
        while (f.find()) {
            long size = f.group(1).equals("unsigned int") ? 4 : 8;
            at = (at + size - 1) / size * size;
            offsets.put(f.group(2), at);
            fields.add(f.group(2));
            at += size;
        }
        assertEquals(List.of("set", "dispatch", "packet", "agent", "version", "spin_limit", "ports", "stride", "device_first",
                "device_ports", "lanes", "reserved", "locks"), fields);
        assertEquals(CudaRpc.CTX_SET, offsets.get("set"));
        assertEquals(CudaRpc.CTX_DISPATCH, offsets.get("dispatch"));
        assertEquals(CudaRpc.CTX_PACKET, offsets.get("packet"));
        assertEquals(CudaRpc.CTX_AGENT, offsets.get("agent"));
        assertEquals(CudaRpc.CTX_VERSION, offsets.get("version"));
        assertEquals(CudaRpc.CTX_SPIN_LIMIT, offsets.get("spin_limit"));
        assertEquals(CudaRpc.CTX_PORTS, offsets.get("ports"));
        assertEquals(CudaRpc.CTX_STRIDE, offsets.get("stride"));
        assertEquals(CudaRpc.CTX_DEVICE_FIRST, offsets.get("device_first"));
        assertEquals(CudaRpc.CTX_DEVICE_PORTS, offsets.get("device_ports"));
        assertEquals(CudaRpc.CTX_LANES, offsets.get("lanes"));
        assertEquals(CudaRpc.CTX_LOCKS, offsets.get("locks"));
        assertEquals(CudaRpc.CTX_BYTES, (at + 7) / 8 * 8);
    }

    @Test
    void theShadowOffsetsAreCudaRpcs() {
        Map<String, Long> d = defines();
        assertEquals(CudaRpc.SHADOW_LOCK, d.get("HSA4J_RPC_SHADOW_LOCK"));
        assertEquals(CudaRpc.SHADOW_VALID, d.get("HSA4J_RPC_SHADOW_VALID"));
        assertEquals(CudaRpc.SHADOW_OPCODE, d.get("HSA4J_RPC_SHADOW_OPCODE"));
        assertEquals(CudaRpc.SHADOW_KIND, d.get("HSA4J_RPC_SHADOW_KIND"));
        assertEquals(CudaRpc.SHADOW_LANE_MASK, d.get("HSA4J_RPC_SHADOW_LANE_MASK"));
        assertEquals(CudaRpc.SHADOW_DISPATCH, d.get("HSA4J_RPC_SHADOW_DISPATCH"));
        assertEquals(CudaRpc.SHADOW_PACKET, d.get("HSA4J_RPC_SHADOW_PACKET"));
        assertEquals(CudaRpc.SHADOW_AGENT, d.get("HSA4J_RPC_SHADOW_AGENT"));
        assertEquals(CudaRpc.SHADOW_BYTES, d.get("HSA4J_RPC_SHADOW_BYTES"));
        assertEquals(RpcLayout.LOCK + 8, CudaRpc.TABLE_TOKEN);
    }

    /**
     * A call's port lock is an L2 atomic on the shadow in device memory, never a system-scope atomic
     * on host memory (a non-posted PCIe round trip per call): no {@code atom} in the kernels has sys scope.
     */
    @Test
    void theKernelsLockPortsWithoutASystemScopeAtomic() {
        String ptx = CudaRpc.resourceText(CudaRpc.KERNELS_PTX);
        Matcher atom = Pattern.compile("\\batom\\.[\\w.]+").matcher(ptx);
        List<String> atoms = new ArrayList<>();
        while (atom.find()) {
            atoms.add(atom.group());
        }
        assertFalse(atoms.isEmpty(), "the kernels lock ports with an atomic");
        assertTrue(atoms.stream().noneMatch(a -> a.contains(".sys")), "system-scope atomics in the kernels: " + atoms);
    }

    @Test
    void theGpuHeapsSizeAndStatusesAreCudaRpcsAndHeapStatus() {
        Map<String, Long> d = new HashMap<>();
        Matcher m = DEFINE.matcher(CudaRpc.heapHeader());
        while (m.find()) {
            d.put(m.group(1), parse(m.group(2)));
        }
        assertEquals(CudaRpc.HEAP_BYTES, d.get("HSA4J_GHEAP_DESCRIPTORS") + d.get("HSA4J_GHEAP_MAX_CHUNKS") * d.get("HSA4J_GHEAP_DESC_BYTES"));
        // a descriptor's bitmap holds one bit per block of the smallest class
        assertEquals(d.get("HSA4J_GHEAP_DESC_BYTES") - d.get("HSA4J_GHEAP_DESC_BITMAP"),
                d.get("HSA4J_GHEAP_CHUNK_BYTES") >> d.get("HSA4J_GHEAP_MIN_SHIFT") >> 3);
        assertEquals(HeapStatus.OK, d.get("HSA4J_HEAP_OK"));
        assertEquals(HeapStatus.DOUBLE_FREE, d.get("HSA4J_HEAP_DOUBLE_FREE"));
        assertEquals(HeapStatus.FOREIGN_POINTER, d.get("HSA4J_HEAP_FOREIGN_POINTER"));
        assertEquals(HeapStatus.INTERIOR_POINTER, d.get("HSA4J_HEAP_INTERIOR_POINTER"));
    }

    private static List<String> kernelsInSource() {
        List<String> names = new ArrayList<>();
        Matcher m = Pattern.compile("extern \"C\" __global__ void (\\w+)\\(").matcher(CudaRpc.resourceText(CudaRpc.KERNELS_CU));
        while (m.find()) {
            names.add(m.group(1));
        }
        return names;
    }

    @Test
    void theCheckedInPtxHasEveryKernelOfTheSource() {
        List<String> names = kernelsInSource();
        assertEquals(List.of("hsa4j_rpc_nop", "hsa4j_rpc_echo", "hsa4j_rpc_syscalls", "hsa4j_rpc_malloc_free",
                "hsa4j_rpc_fibonacci", "hsa4j_rpc_printf", "hsa4j_rpc_milthread", "hsa4j_gheap_check"), names);
        assertEquals(names, CudaCodeObject.fromResource(CudaRpc.KERNELS_PTX).ptxEntryNames());
    }

    @Test
    void theKernelsCompileWithNvccForSm90WhereNvccIsInstalled(@TempDir Path dir) throws IOException, InterruptedException {
        Path nvcc = nvcc();
        Assumptions.assumeTrue(nvcc != null, "no nvcc on PATH or in /usr/local/cuda/bin");
        Files.writeString(dir.resolve(CudaRpc.HEADER_NAME), CudaRpc.header());
        Files.writeString(dir.resolve(CudaRpc.HEAP_HEADER_NAME), CudaRpc.heapHeader());
        Files.writeString(dir.resolve("k.cu"), CudaRpc.resourceText(CudaRpc.KERNELS_CU));
        Process p = new ProcessBuilder(nvcc.toString(), "-arch=sm_90", "-ptx", "-I" + dir, "-o", dir.resolve("k.ptx").toString(),
                dir.resolve("k.cu").toString()).redirectErrorStream(true).start();
        assertTrue(p.waitFor(240, TimeUnit.SECONDS), "nvcc within 4 minutes");
        String log = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, p.exitValue(), "nvcc failed:\n" + log);
        assertFalse(log.contains("warning"), log);
        assertEquals(kernelsInSource(), CudaCodeObject.fromFile(dir.resolve("k.ptx")).ptxEntryNames());
    }

    private static Path nvcc() {
        for (String d : System.getenv().getOrDefault("PATH", "").split(java.io.File.pathSeparator)) {
            Path p = Path.of(d, "nvcc");
            if (Files.isExecutable(p)) {
                return p;
            }
        }
        Path p = Path.of("/usr/local/cuda/bin/nvcc");
        return Files.isExecutable(p) ? p : null;
    }
}
