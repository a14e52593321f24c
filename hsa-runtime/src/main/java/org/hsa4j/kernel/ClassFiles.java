package org.hsa4j.kernel;

import java.nio.charset.StandardCharsets;

import org.hsa4j.status.HsaException;
import org.hsa4j.status.HsaStatus;

/**
 * Reads the binary name of the class a class file defines: the constant pool walked to
 * {@code this_class} (JVMS 4.1, 4.4). Any malformed or truncated file is INVALID_CODE_OBJECT.
 */
final class ClassFiles {
    private ClassFiles() {
    }

    /** The binary name ({@code a.b.C$D}) of the class {@code bytes} define. */
    static String binaryName(byte[] bytes, String origin) {
        try {
            int count = u2(bytes, 8);
            int[] offsets = new int[count];
            int at = 10;
            for (int i = 1; i < count; i++) {
                offsets[i] = at;
                int tag = bytes[at] & 0xff;
                switch (tag) {
                    case 1 -> at += 3 + u2(bytes, at + 1);                 // Utf8
                    case 3, 4, 9, 10, 11, 12, 17, 18 -> at += 5;            // Integer .. InvokeDynamic
                    case 5, 6 -> {                                          // Long, Double: two entries
                        at += 9;
                        i++;
                    }
                    case 7, 8, 16, 19, 20 -> at += 3;                       // Class, String, MethodType, Module, Package
                    case 15 -> at += 4;                                     // MethodHandle
                    default -> throw bad(origin, "constant pool tag " + tag + " at byte " + at);
                }
            }
            int thisClass = u2(bytes, at + 2);
            if (thisClass <= 0 || thisClass >= count || (bytes[offsets[thisClass]] & 0xff) != 7) {
                throw bad(origin, "this_class is not a class constant");
            }
            int nameIndex = u2(bytes, offsets[thisClass] + 1);
            int utf = offsets[nameIndex];
            if ((bytes[utf] & 0xff) != 1) {
                throw bad(origin, "this_class names no Utf8 constant");
            }
            return new String(bytes, utf + 3, u2(bytes, utf + 1), StandardCharsets.UTF_8).replace('/', '.');
        } catch (ArrayIndexOutOfBoundsException | StringIndexOutOfBoundsException e) {
            throw bad(origin, "the class file is truncated");
        }
    }

    private static HsaException bad(String origin, String why) {
        return new HsaException(HsaStatus.INVALID_CODE_OBJECT, "code object " + origin + " is not a valid class file: " + why);
    }

    private static int u2(byte[] b, int at) {
        return (b[at] & 0xff) << 8 | (b[at + 1] & 0xff);
    }
}
