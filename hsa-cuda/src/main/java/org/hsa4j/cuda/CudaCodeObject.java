package org.hsa4j.cuda;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import org.hsa4j.status.HsaException;
import org.hsa4j.status.HsaStatus;

/**
 * A CUDA code object (the spec's code object reader): PTX text, a cubin (ELF) or a fatbin, kept as
 * bytes so the agent can load it again after it recreates its context. The format is recognized
 * from the bytes; what is neither is INVALID_CODE_OBJECT here, before any driver sees it. For PTX,
 * the entry points and their kernarg layouts are read from the text ({@link PtxInfo}).
 */
public final class CudaCodeObject {
    /** The code object formats the driver loads. */
    public enum Format {
        /** PTX assembly text, JIT-compiled by the driver at load. */
        PTX,
        /** A cubin: an ELF image of one architecture. */
        CUBIN,
        /** A fat binary: cubins and PTX for several architectures. */
        FATBIN
    }

    /** Magic of a fatbin ({@code 0xBA55ED50}), little-endian at offset 0. */
    static final int FATBIN_MAGIC = 0xBA55ED50;

    private final String name;
    private final Format format;
    private final byte[] image;
    private final Map<String, KernargLayout> ptxEntries;

    private CudaCodeObject(String name, Format format, byte[] image, Map<String, KernargLayout> ptxEntries) {
        this.name = name;
        this.format = format;
        this.image = image;
        this.ptxEntries = ptxEntries;
    }

    /**
     * A code object from {@code bytes}, named {@code name} in messages.
     *
     * @throws HsaException INVALID_CODE_OBJECT when the bytes are none of PTX, cubin, fatbin
     */
    public static CudaCodeObject fromBytes(String name, byte[] bytes) {
        Format f = detect(bytes);
        if (f == null) {
            throw new HsaException(HsaStatus.INVALID_CODE_OBJECT, name + " is neither PTX, a cubin nor a fatbin ("
                    + bytes.length + " bytes" + (bytes.length >= 4 ? String.format(", starting %02x %02x %02x %02x",
                    bytes[0], bytes[1], bytes[2], bytes[3]) : "") + ")");
        }
        if (f == Format.PTX) {
            String text = new String(bytes, StandardCharsets.UTF_8);
            Map<String, KernargLayout> entries = PtxInfo.entries(text);
            int nul = text.indexOf('\0');
            byte[] terminated = Arrays.copyOf(bytes, (nul >= 0 ? nul : bytes.length) + 1);
            return new CudaCodeObject(name, f, terminated, entries);
        }
        return new CudaCodeObject(name, f, bytes.clone(), Map.of());
    }

    /**
     * A code object from a file.
     *
     * @throws HsaException INVALID_CODE_OBJECT when the file cannot be read or is not a code object
     */
    public static CudaCodeObject fromFile(Path file) {
        try {
            return fromBytes(file.getFileName().toString(), Files.readAllBytes(file));
        } catch (IOException e) {
            throw new HsaException(HsaStatus.INVALID_CODE_OBJECT, "cannot read code object " + file + ": " + e, e);
        }
    }

    /**
     * A code object from a class-path resource.
     *
     * @throws HsaException INVALID_CODE_OBJECT when it is missing or not a code object
     */
    public static CudaCodeObject fromResource(String resource) {
        try (InputStream in = CudaCodeObject.class.getClassLoader().getResourceAsStream(resource)) {
            if (in == null) {
                throw new HsaException(HsaStatus.INVALID_CODE_OBJECT, "no resource " + resource);
            }
            return fromBytes(resource, in.readAllBytes());
        } catch (IOException e) {
            throw new HsaException(HsaStatus.INVALID_CODE_OBJECT, "cannot read resource " + resource + ": " + e, e);
        }
    }

    /** The format of {@code b}, or null when it is none: ELF is a cubin, the fatbin magic a fatbin, PTX text with .version and .target. */
    static Format detect(byte[] b) {
        if (b.length >= 4 && b[0] == 0x7F && b[1] == 'E' && b[2] == 'L' && b[3] == 'F') {
            return Format.CUBIN;
        }
        if (b.length >= 4 && ((b[0] & 0xFF) | (b[1] & 0xFF) << 8 | (b[2] & 0xFF) << 16 | (b[3] & 0xFF) << 24) == FATBIN_MAGIC) {
            return Format.FATBIN;
        }
        String text = new String(b, 0, Math.min(b.length, 1 << 16), StandardCharsets.UTF_8);
        if (PtxInfo.looksLikePtx(text)) {
            return Format.PTX;
        }
        return null;
    }

    /** The name messages use. */
    public String name() {
        return name;
    }

    /** The format. */
    public Format format() {
        return format;
    }

    /** The bytes the driver loads (PTX NUL-terminated); a copy. */
    public byte[] image() {
        return image.clone();
    }

    byte[] imageUnsafe() {
        return image;
    }

    /** PTX entry points with their kernarg layouts (empty for cubin and fatbin). */
    public Map<String, KernargLayout> ptxEntries() {
        return ptxEntries;
    }

    /** The names of the PTX entry points (empty for cubin and fatbin). */
    public List<String> ptxEntryNames() {
        return List.copyOf(ptxEntries.keySet());
    }

    @Override
    public String toString() {
        return "CudaCodeObject[" + name + ", " + format + ", " + image.length + " bytes]";
    }
}
