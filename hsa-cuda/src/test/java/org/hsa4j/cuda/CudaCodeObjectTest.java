package org.hsa4j.cuda;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.hsa4j.status.HsaException;
import org.hsa4j.status.HsaStatus;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Code object handling without a GPU: format detection, PTX entries and kernarg layouts, bad inputs. */
class CudaCodeObjectTest {
    static final String KERNELS_PTX = "org/hsa4j/cuda/kernels/hsa4j_kernels.ptx";

    @Test
    void theShippedPtxIsPtxWithEveryKernelOfTheCudaSource() {
        CudaCodeObject c = CudaCodeObject.fromResource(KERNELS_PTX);
        assertEquals(CudaCodeObject.Format.PTX, c.format());
        // the kernels the .cu source defines, in order: the checked-in PTX must be made from this source
        List<String> inSource = java.util.regex.Pattern.compile("extern \"C\" __global__ void (\\w+)\\(")
                .matcher(GpuFixture.kernelSource()).results().map(r -> r.group(1)).toList();
        assertEquals(List.of("hsa4j_empty", "hsa4j_vector_add", "hsa4j_mark", "hsa4j_count", "hsa4j_pingpong",
                "hsa4j_pingpong_serve", "hsa4j_fault"), inSource.subList(0, 7));
        assertEquals(inSource, c.ptxEntryNames());
    }

    @Test
    void kernargLayoutOfSync2WayIsThreePointersAnIntAndAnAlignedLong() {
        KernargLayout l = CudaCodeObject.fromResource(KERNELS_PTX).ptxEntries().get("hsa4j_sync_2way");
        assertArrayEquals(new long[] {0, 8, 16, 24, 32}, l.offsets());
        assertEquals(40, l.bytes());
    }

    @Test
    void kernargLayoutsOfTheSeedKernelsArePointersThenTheCount() {
        var entries = CudaCodeObject.fromResource(KERNELS_PTX).ptxEntries();
        assertArrayEquals(new long[] {0, 8, 16, 24}, entries.get("hsa4j_atomic_int").offsets());
        assertArrayEquals(new long[] {0, 8}, entries.get("hsa4j_chain_iota").offsets());
        assertArrayEquals(new long[] {0, 8, 16}, entries.get("hsa4j_chain_add_one").offsets());
        assertArrayEquals(new long[] {0, 8}, entries.get("hsa4j_twice_plus_one").offsets());
    }

    @Test
    void kernargLayoutOfVectorAddIsThreePointersAndAnInt() {
        KernargLayout l = CudaCodeObject.fromResource(KERNELS_PTX).ptxEntries().get("hsa4j_vector_add");
        assertArrayEquals(new long[] {0, 8, 16, 24}, l.offsets());
        assertArrayEquals(new long[] {8, 8, 8, 4}, l.sizes());
        assertEquals(28, l.bytes());
    }

    @Test
    void kernargLayoutAlignsALongAfterAnInt() {
        KernargLayout l = CudaCodeObject.fromResource(KERNELS_PTX).ptxEntries().get("hsa4j_pingpong");
        assertArrayEquals(new long[] {0, 8, 16}, l.offsets());
        assertEquals(24, l.bytes());
    }

    @Test
    void kernargLayoutOfPingpongServeIsAPointerAndALong() {
        KernargLayout l = CudaCodeObject.fromResource(KERNELS_PTX).ptxEntries().get("hsa4j_pingpong_serve");
        assertArrayEquals(new long[] {0, 8}, l.offsets());
        assertEquals(16, l.bytes());
    }

    @Test
    void anEmptyKernelHasAnEmptyKernargSegment() {
        assertEquals(0, CudaCodeObject.fromResource(KERNELS_PTX).ptxEntries().get("hsa4j_empty").bytes());
    }

    @Test
    void alignedByteArrayParametersUseTheirAlignmentAndLength() {
        String ptx = ".version 9.0\n.target sm_90\n.address_size 64\n"
                + ".visible .entry k(\n\t.param .u32 k_param_0,\n\t.param .align 16 .b8 k_param_1[48]\n)\n{\n\tret;\n}\n";
        KernargLayout l = CudaCodeObject.fromBytes("k.ptx", ptx.getBytes(StandardCharsets.UTF_8)).ptxEntries().get("k");
        assertArrayEquals(new long[] {0, 16}, l.offsets());
        assertEquals(64, l.bytes());
    }

    @Test
    void ptxIsNulTerminatedForTheDriver() {
        byte[] image = CudaCodeObject.fromResource(KERNELS_PTX).image();
        assertEquals(0, image[image.length - 1]);
    }

    @Test
    void anElfImageIsACubin() {
        byte[] elf = {0x7F, 'E', 'L', 'F', 2, 1, 1, 0x33};
        assertEquals(CudaCodeObject.Format.CUBIN, CudaCodeObject.fromBytes("k.cubin", elf).format());
    }

    @Test
    void theFatbinMagicIsAFatbin() {
        byte[] fat = {0x50, (byte) 0xED, 0x55, (byte) 0xBA, 1, 0, 0x10, 0};
        assertEquals(CudaCodeObject.Format.FATBIN, CudaCodeObject.fromBytes("k.fatbin", fat).format());
    }

    @Test
    void bytesThatAreNoCodeObjectAreAnInvalidCodeObject() {
        HsaException e = assertThrows(HsaException.class,
                () -> CudaCodeObject.fromBytes("junk.bin", "hello, GPU".getBytes(StandardCharsets.UTF_8)));
        assertEquals(HsaStatus.INVALID_CODE_OBJECT, e.status());
        assertTrue(e.getMessage().contains("junk.bin is neither PTX, a cubin nor a fatbin"), e.getMessage());
    }

    @Test
    void aMissingFileIsAnInvalidCodeObjectNamingIt(@TempDir Path dir) {
        HsaException e = assertThrows(HsaException.class, () -> CudaCodeObject.fromFile(dir.resolve("none.ptx")));
        assertEquals(HsaStatus.INVALID_CODE_OBJECT, e.status());
        assertTrue(e.getMessage().contains("none.ptx"), e.getMessage());
    }

    @Test
    void aFileIsReadAsItsBytes(@TempDir Path dir) throws Exception {
        Path f = dir.resolve("k.ptx");
        Files.write(f, CudaCodeObject.fromResource(KERNELS_PTX).image());
        assertEquals(CudaCodeObject.fromResource(KERNELS_PTX).ptxEntryNames(), CudaCodeObject.fromFile(f).ptxEntryNames());
    }

    @Test
    void aMissingResourceIsAnInvalidCodeObject() {
        assertEquals(HsaStatus.INVALID_CODE_OBJECT,
                assertThrows(HsaException.class, () -> CudaCodeObject.fromResource("no/such.ptx")).status());
    }
}
