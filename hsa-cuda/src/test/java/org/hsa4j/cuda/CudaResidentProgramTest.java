package org.hsa4j.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.hsa4j.packet.AqlPacket;
import org.hsa4j.packet.BarrierPacket;
import org.hsa4j.packet.KernelDispatchPacket;
import org.hsa4j.packet.PacketType;
import org.hsa4j.queue.QueueDescriptor;
import org.hsa4j.status.HsaException;
import org.hsa4j.status.HsaStatus;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The resident processor's parts that need no GPU: source assembly, kernel objects, the layout against the .cu, PTX. */
class CudaResidentProgramTest {
    private static Map<String, Long> defines() {
        Map<String, Long> m = new HashMap<>();
        Matcher d = Pattern.compile("(?m)^#define (HSA4J_[A-Z0-9_]+) (\\d+)\\s*$")
                .matcher(CudaResidentProgram.resource(CudaResidentProgram.PROCESSOR_CU));
        while (d.find()) {
            m.put(d.group(1), Long.parseLong(d.group(2)));
        }
        return m;
    }

    @Test
    void everyLayoutConstantHasItsTwinInTheProcessorSource() throws IllegalAccessException {
        Map<String, Long> defines = defines();
        int checked = 0;
        for (Field f : ResidentLayout.class.getDeclaredFields()) {
            String n = f.getName();
            if (!Modifier.isStatic(f.getModifiers()) || n.equals("CTL_BYTES") || n.equals("MAILBOX_BYTES")
                    || n.equals("KERNEL_OBJECT_TAG") || n.equals("STATE_LAUNCHED")) {
                continue;   // host-side only
            }
            f.setAccessible(true);
            long v = ((Number) f.get(null)).longValue();
            assertEquals(v, defines.get("HSA4J_R_" + n), "HSA4J_R_" + n + " in hsa4j_resident.cu");
            checked++;
        }
        assertTrue(checked >= 20, "checked " + checked);
    }

    @Test
    void queueAndPacketOffsetsInTheProcessorSourceAreTheRuntimes() {
        Map<String, Long> d = defines();
        assertEquals(QueueDescriptor.WRITE_INDEX, d.get("HSA4J_Q_WRITE_INDEX"));
        assertEquals(QueueDescriptor.READ_INDEX, d.get("HSA4J_Q_READ_INDEX"));
        assertEquals(AqlPacket.SIZE, d.get("HSA4J_P_SIZE"));
        assertEquals(AqlPacket.COMPLETION_SIGNAL, d.get("HSA4J_P_COMPLETION"));
        assertEquals(BarrierPacket.DEP_SIGNAL0, d.get("HSA4J_P_DEP0"));
        assertEquals(BarrierPacket.DEP_SIGNAL_COUNT, d.get("HSA4J_P_DEPS"));
        assertEquals(PacketType.INVALID.code(), d.get("HSA4J_T_INVALID"));
        assertEquals(PacketType.KERNEL_DISPATCH.code(), d.get("HSA4J_T_KERNEL_DISPATCH"));
        assertEquals(PacketType.BARRIER_AND.code(), d.get("HSA4J_T_BARRIER_AND"));
        assertEquals(PacketType.BARRIER_OR.code(), d.get("HSA4J_T_BARRIER_OR"));
        // the decoder reads the dispatch as 64-bit words: the fields must sit where it takes them
        assertEquals(4, KernelDispatchPacket.WORKGROUP_SIZE_X);
        assertEquals(12, KernelDispatchPacket.GRID_SIZE_X);
        assertEquals(28, KernelDispatchPacket.GROUP_SEGMENT_SIZE);
        assertEquals(32, KernelDispatchPacket.KERNEL_OBJECT);
        assertEquals(40, KernelDispatchPacket.KERNARG_ADDRESS);
    }

    @Test
    void kernelObjectCarriesTagProgramAndIndex() {
        long ko = ResidentLayout.kernelObject(7, 3);
        assertEquals(0xC0DB_0007_0000_0003L, ko);
        assertEquals(ResidentLayout.programKey(7), ko >>> 32, "what the processor compares bits 32..63 with");
    }

    @Test
    void tableCallsEachKernelByItsIndex() {
        String t = CudaResidentProgram.table(List.of("k0", "k1"));
        assertTrue(t.contains("#define HSA4J_RESIDENT_KERNEL_COUNT 2\n"), t);
        assertTrue(t.contains("case 0: k0(kernarg, it); break;"), t);
        assertTrue(t.contains("case 1: k1(kernarg, it); break;"), t);
    }

    @Test
    void sourceIsPreludeBuiltinsCallersKernelsTableThenProcessor() {
        String s = CudaResidentProgram.source("__device__ void mine(const void* k, const hsa4j_item& it) {}\n", List.of("mine"));
        int prelude = s.indexOf("struct hsa4j_item");
        int builtin = s.indexOf("void hsa4j_r_empty(");
        int mine = s.indexOf("void mine(");
        int table = s.indexOf("#define HSA4J_RESIDENT_KERNEL_COUNT " + (CudaResidentProgram.BUILTIN.size() + 1));
        int processor = s.indexOf("hsa4j_resident_processor(");
        assertTrue(0 <= prelude && prelude < builtin && builtin < mine && mine < table && table < processor,
                "order " + List.of(prelude, builtin, mine, table, processor));
        assertTrue(s.contains("case " + CudaResidentProgram.BUILTIN.size() + ": mine(kernarg, it);"));
    }

    @Test
    void builtinKernelsAreDefinedInTheBuiltinSource() {
        String b = CudaResidentProgram.resource(CudaResidentProgram.BUILTIN_CU);
        for (String k : CudaResidentProgram.BUILTIN) {
            assertTrue(b.contains("__device__ void " + k + "(const void* kernarg, const hsa4j_item& it)"), k);
        }
    }

    @Test
    void checkedInPtxHasTheProcessorEntryWithTenParameters() {
        String ptx = CudaResidentProgram.resource(CudaResidentProgram.BUILTIN_PTX);
        CudaCodeObject code = CudaCodeObject.fromBytes("hsa4j_resident.ptx", ptx.getBytes(StandardCharsets.UTF_8));
        assertTrue(code.ptxEntries().containsKey(CudaResidentProgram.PROCESSOR), code.ptxEntryNames().toString());
        assertEquals(10 * 8, code.ptxEntries().get(CudaResidentProgram.PROCESSOR).bytes());
    }

    @Test
    void optionsOutsideTheirRangesAreInvalidArgument() {
        assertEquals(HsaStatus.INVALID_ARGUMENT, assertThrows(HsaException.class,
                () -> new CudaResidentOptions(-1, 0, 0)).status());
        assertEquals(HsaStatus.INVALID_ARGUMENT, assertThrows(HsaException.class,
                () -> CudaResidentOptions.DEFAULTS.withMaxBlocks(-2)).status());
        assertEquals(HsaStatus.INVALID_ARGUMENT, assertThrows(HsaException.class,
                () -> new CudaResidentOptions(0, 0, 2_000_000)).status());
    }

    /** A phase timer of 100 packets over a grid life of 1 ms at 2 cycles per ns, every phase 0. */
    private static long[] hundredPacketsInAMillisecond() {
        long[] ph = new long[ResidentLayout.PHASE_COUNT];
        ph[ResidentLayout.PH_CYCLES] = 2_000_000;
        ph[ResidentLayout.PH_NANOS] = 1_000_000;
        ph[ResidentLayout.PH_PACKETS] = 100;
        return ph;
    }

    @Test
    void phaseReportGivesEachPhaseInNanosPerPacket() {
        long[] ph = hundredPacketsInAMillisecond();
        ph[ResidentLayout.PH_WINDOWS] = 10;
        ph[ResidentLayout.PH_BODY_CYCLES] = 20_000;   // 10 rounds of 1000 ns: 100 ns a packet
        String r = ResidentLayout.phaseReport(ph);
        assertTrue(r.startsWith("100 packets in 10 windows, 0.500 ns/cycle, grid alive 10.0 us/packet;"), r);
        assertTrue(r.contains(" body rounds 10 x 1000 ns = 100 ns/packet;"), r);
    }

    @Test
    void phaseReportGivesTheLeadBeforeFirstLooksAndItsMisses() {
        long[] ph = hundredPacketsInAMillisecond();
        ph[ResidentLayout.PH_LEAD_CYCLES] = 60_000;   // 300 ns a packet
        ph[ResidentLayout.PH_LEAD_MISSES] = 7;
        String r = ResidentLayout.phaseReport(ph);
        assertTrue(r.contains(" leads = 300 ns/packet; lead misses 7;"), r);
        assertTrue(r.endsWith(" untimed = 9700 ns/packet;"), r);   // the lead is a timed phase
    }

    @Test
    void phaseReportGivesTheGridTimeNoPhaseCounted() {
        long[] ph = hundredPacketsInAMillisecond();
        ph[ResidentLayout.PH_BODY_CYCLES] = 20_000;
        ph[ResidentLayout.PH_RUN_CYCLES] = 180_000;   // 200,000 cycles timed: 1,800,000 not, 9000 ns a packet
        String r = ResidentLayout.phaseReport(ph);
        assertTrue(r.endsWith(" untimed = 9000 ns/packet;"), r);
    }

    @Test
    void everyErrorCodeHasAMessageNamingItsField() {
        assertTrue(ResidentLayout.errorMessage(ResidentLayout.ERR_PACKET_TYPE, 4).contains("type 4"));
        assertTrue(ResidentLayout.errorMessage(ResidentLayout.ERR_KERNEL_OBJECT, 9).contains("kernel object"));
        assertTrue(ResidentLayout.errorMessage(ResidentLayout.ERR_WORKGROUP, 512).contains("workgroup size 512"));
        assertTrue(ResidentLayout.errorMessage(ResidentLayout.ERR_GRID, 0).contains("grid size is 0"));
        assertTrue(ResidentLayout.errorMessage(ResidentLayout.ERR_DIMENSIONS, 0).contains("dimensions 0"));
        assertTrue(ResidentLayout.errorMessage(ResidentLayout.ERR_GROUP_SEGMENT, 64).contains("group segment of 64"));
        assertTrue(ResidentLayout.errorMessage(ResidentLayout.ERR_FENCE, 0x1e02).contains("fence scope"));
    }

    private static boolean nvcc() {
        try {
            Process p = new ProcessBuilder("nvcc", "--version").redirectErrorStream(true).start();
            p.getInputStream().readAllBytes();
            return p.waitFor(60, TimeUnit.SECONDS) && p.exitValue() == 0;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private static String compile(Path dir, String source) throws Exception {
        Path cu = dir.resolve("hsa4j_resident_program.cu");
        Path ptx = dir.resolve("out.ptx");
        Files.writeString(cu, source);
        Process p = new ProcessBuilder("nvcc", "-arch=sm_90", "-ptx", "-diag-suppress", "177", "-o", ptx.toString(),
                cu.toString()).redirectErrorStream(true).start();
        String log = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), "nvcc finished");
        assertEquals(0, p.exitValue(), "nvcc: " + log);
        return Files.readString(ptx);
    }

    private static String withoutComments(String ptx) {
        return ptx.lines().filter(l -> !l.startsWith("//")).reduce("", (a, b) -> a + b + "\n");
    }

    @Test
    void builtinProgramCompilesToTheCheckedInPtx(@TempDir Path dir) throws Exception {
        Assumptions.assumeTrue(nvcc(), "nvcc is not on the PATH");
        String ptx = compile(dir, CudaResidentProgram.source("", List.of()));
        assertEquals(withoutComments(CudaResidentProgram.resource(CudaResidentProgram.BUILTIN_PTX)), withoutComments(ptx),
                "hsa4j_resident.ptx is stale: regenerate it with nvcc -arch=sm_90 -ptx from CudaResidentProgram.source(\"\", List.of())");
    }

    @Test
    void programWithCallersKernelCompilesForSm90(@TempDir Path dir) throws Exception {
        Assumptions.assumeTrue(nvcc(), "nvcc is not on the PATH");
        String ptx = compile(dir, CudaResidentProgram.source("""
                __device__ void add_index(const void* kernarg, const hsa4j_item& it) {
                    int* p = *(int* const*) kernarg;
                    p[it.global_x] += (int) it.global_x;
                }
                """, List.of("add_index")));
        assertTrue(ptx.contains(".entry " + CudaResidentProgram.PROCESSOR), "entry in the PTX");
    }
}
