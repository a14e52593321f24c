package org.hsa4j.kernel;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

import org.hsa4j.status.HsaException;
import org.hsa4j.status.HsaStatus;

/**
 * Tells a device code object's format from its bytes and checks that the bytes hold all of it, so
 * a truncated or foreign file is INVALID_CODE_OBJECT when the reader is made, before any driver
 * sees it. The offsets are the file formats' own: the ELF64 header and section headers (System V
 * gABI), the fat binary's 16-byte header ({@code magic u32, version u16, header size u16, payload
 * size u64}), and PTX's leading directives (PTX ISA, "Module Directives").
 */
final class NativeImages {
    /** ELF magic {@code 0x7F 'E' 'L' 'F'}. */
    static final int ELF_MAGIC = 0x7F454C46;
    /** {@code e_ident[EI_CLASS]}: 2 is ELFCLASS64. */
    static final int EI_CLASS = 4;
    /** {@code e_ident[EI_DATA]}: 1 is little-endian. */
    static final int EI_DATA = 5;
    static final int E_MACHINE = 18;
    static final int E_PHOFF = 32;
    static final int E_SHOFF = 40;
    static final int E_PHENTSIZE = 54;
    static final int E_PHNUM = 56;
    static final int E_SHENTSIZE = 58;
    static final int E_SHNUM = 60;
    static final int ELF64_HEADER_BYTES = 64;
    /** Section header fields: type, file offset, size; SHT_NOBITS occupies no file bytes. */
    static final int SH_TYPE = 4;
    static final int SH_OFFSET = 24;
    static final int SH_SIZE = 32;
    static final int SH_ENTRY_MIN = 64;
    static final int SHT_NOBITS = 8;
    /** {@code EM_CUDA}: the machine of a cubin. */
    static final int EM_CUDA = 190;

    /** A fat binary's magic, little-endian at offset 0. */
    static final int FATBIN_MAGIC = 0xBA55ED50;
    /** The magic of {@code __fatBinC_Wrapper_t}, the host object's record that points at a fat binary. */
    static final int FATBIN_WRAPPER_MAGIC = 0x466243B1;
    static final int FATBIN_HEADER_SIZE = 6;
    static final int FATBIN_PAYLOAD_SIZE = 8;
    static final int FATBIN_HEADER_BYTES = 16;

    private NativeImages() {
    }

    /** True when the bytes start like a cubin, a fat binary (or its wrapper) or PTX text. */
    static boolean claims(byte[] b) {
        return b.length >= 4 && (bigEndianInt(b) == ELF_MAGIC || littleEndianInt(b) == FATBIN_MAGIC
                || littleEndianInt(b) == FATBIN_WRAPPER_MAGIC) || startsLikePtx(b);
    }

    /**
     * The format of bytes that {@link #claims} them, checked whole.
     *
     * @throws HsaException INVALID_CODE_OBJECT for a truncated image, an ELF of another machine,
     *                      a fat binary wrapper (it holds a pointer, not the code), or PTX without
     *                      its {@code .target} or with unbalanced braces
     */
    static CodeObjectFormat check(byte[] b, String origin) {
        if (b.length >= 4 && bigEndianInt(b) == ELF_MAGIC) {
            checkCubin(b, origin);
            return CodeObjectFormat.CUBIN;
        }
        if (b.length >= 4 && littleEndianInt(b) == FATBIN_MAGIC) {
            checkFatbin(b, origin);
            return CodeObjectFormat.FATBIN;
        }
        if (b.length >= 4 && littleEndianInt(b) == FATBIN_WRAPPER_MAGIC) {
            throw bad(origin, "is a fat binary wrapper (0x466243B1): it holds the address of its fat binary in the "
                    + "memory of the process that made it, not the code; give the fat binary itself (magic 0xBA55ED50, "
                    + "the .nv_fatbin section, or nvcc -fatbin's output)");
        }
        checkPtx(b, origin);
        return CodeObjectFormat.PTX;
    }

    private static void checkCubin(byte[] b, String origin) {
        if (b.length < ELF64_HEADER_BYTES) {
            throw bad(origin, "is a truncated ELF file (" + b.length + " bytes, less than its 64-byte header)");
        }
        ByteBuffer e = ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN);
        if (b[EI_CLASS] != 2 || b[EI_DATA] != 1) {
            throw bad(origin, "is an ELF file but not 64-bit little-endian, as every cubin is");
        }
        int machine = Short.toUnsignedInt(e.getShort(E_MACHINE));
        if (machine != EM_CUDA) {
            throw bad(origin, "is an ELF file for machine " + machine + ", not a cubin (EM_CUDA, 190)");
        }
        long phEnd = tableEnd(e.getLong(E_PHOFF), Short.toUnsignedInt(e.getShort(E_PHENTSIZE)),
                Short.toUnsignedInt(e.getShort(E_PHNUM)));
        long shoff = e.getLong(E_SHOFF);
        int shentsize = Short.toUnsignedInt(e.getShort(E_SHENTSIZE));
        int shnum = Short.toUnsignedInt(e.getShort(E_SHNUM));
        long shEnd = tableEnd(shoff, shentsize, shnum);
        if (phEnd < 0 || shEnd < 0 || phEnd > b.length || shEnd > b.length) {
            throw bad(origin, "is a truncated cubin: its headers end past its " + b.length + " bytes");
        }
        if (shnum > 0 && shentsize < SH_ENTRY_MIN) {
            throw bad(origin, "is not a valid cubin: section header entries of " + shentsize + " bytes");
        }
        for (int i = 0; i < shnum; i++) {
            int at = (int) (shoff + (long) i * shentsize);
            long offset = e.getLong(at + SH_OFFSET);
            long size = e.getLong(at + SH_SIZE);
            if (e.getInt(at + SH_TYPE) != SHT_NOBITS && size > 0
                    && (offset < 0 || size < 0 || offset > b.length || size > b.length - offset)) {
                throw bad(origin, "is a truncated cubin: section " + i + " ends past its " + b.length + " bytes");
            }
        }
    }

    /** The end of a header table: 0 when it is empty, -1 when its offset is not a file offset. */
    private static long tableEnd(long offset, int entrySize, int count) {
        if (count == 0) {
            return 0;
        }
        return offset < 0 ? -1 : offset + (long) entrySize * count;
    }

    private static void checkFatbin(byte[] b, String origin) {
        if (b.length < FATBIN_HEADER_BYTES) {
            throw bad(origin, "is a truncated fat binary (" + b.length + " bytes, less than its 16-byte header)");
        }
        ByteBuffer f = ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN);
        int header = Short.toUnsignedInt(f.getShort(FATBIN_HEADER_SIZE));
        long payload = f.getLong(FATBIN_PAYLOAD_SIZE);
        if (header < FATBIN_HEADER_BYTES || payload <= 0 || payload > b.length - header) {
            throw bad(origin, "is a truncated fat binary: its header says " + header + " + " + payload
                    + " bytes, the code object has " + b.length);
        }
    }

    private static void checkPtx(byte[] b, String origin) {
        String text = new String(b, StandardCharsets.UTF_8);
        int nul = text.indexOf('\0');
        if (nul >= 0) {
            text = text.substring(0, nul);   // the driver reads PTX as a C string
        }
        String code = withoutComments(text);
        if (!java.util.regex.Pattern.compile("(?m)^\\s*\\.target\\s+\\w+").matcher(code).find()) {
            throw bad(origin, "is PTX without a .target directive: truncated, or not a PTX module");
        }
        int depth = 0;
        for (int i = 0; i < code.length(); i++) {
            char c = code.charAt(i);
            if (c == '"') {
                int close = code.indexOf('"', i + 1);
                i = close < 0 ? code.length() : close;
            } else if (c == '{') {
                depth++;
            } else if (c == '}' && --depth < 0) {
                break;
            }
        }
        if (depth != 0) {
            throw bad(origin, "is truncated PTX: its braces do not balance");
        }
    }

    /** True when the first thing after blank space and comments is the {@code .version} directive. */
    private static boolean startsLikePtx(byte[] b) {
        String head = new String(b, 0, Math.min(b.length, 1 << 16), StandardCharsets.UTF_8);
        return withoutComments(head).stripLeading().startsWith(".version");
    }

    /** {@code text} with its {@code //} and {@code /* *}{@code /} comments blanked. */
    private static String withoutComments(String text) {
        StringBuilder out = new StringBuilder(text.length());
        int i = 0;
        while (i < text.length()) {
            if (text.startsWith("//", i)) {
                int end = text.indexOf('\n', i);
                i = end < 0 ? text.length() : end;
            } else if (text.startsWith("/*", i)) {
                int end = text.indexOf("*/", i + 2);
                i = end < 0 ? text.length() : end + 2;
                out.append(' ');
            } else {
                out.append(text.charAt(i++));
            }
        }
        return out.toString();
    }

    private static int bigEndianInt(byte[] b) {
        return (b[0] & 0xff) << 24 | (b[1] & 0xff) << 16 | (b[2] & 0xff) << 8 | (b[3] & 0xff);
    }

    private static int littleEndianInt(byte[] b) {
        return (b[3] & 0xff) << 24 | (b[2] & 0xff) << 16 | (b[1] & 0xff) << 8 | (b[0] & 0xff);
    }

    private static HsaException bad(String origin, String why) {
        return new HsaException(HsaStatus.INVALID_CODE_OBJECT, "code object " + origin + " " + why);
    }
}
