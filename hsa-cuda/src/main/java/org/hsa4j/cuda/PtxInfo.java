package org.hsa4j.cuda;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads what hsa4j needs from PTX text without a driver: whether it is PTX, its {@code .entry}
 * points and each one's parameter list as a {@link KernargLayout}. Parameters are
 * {@code .param .u64 name}, {@code .param .align A .b8 name[N]} and the like; a scalar type's size
 * is its width, an array's size is its element width times its count.
 */
final class PtxInfo {
    private static final Pattern ENTRY = Pattern.compile("\\.entry\\s+([A-Za-z_$%][\\w$]*)\\s*\\(([^)]*)\\)");
    private static final Pattern PARAM = Pattern.compile(
            "\\.param\\s+(?:\\.align\\s+(\\d+)\\s+)?\\.([a-z]+)(\\d+)\\s+[\\w$%]+(?:\\[(\\d+)])?");

    private PtxInfo() {
    }

    /** True when the text has the {@code .version} and {@code .target} directives every PTX module starts with. */
    static boolean looksLikePtx(String text) {
        return Pattern.compile("(?m)^\\s*\\.version\\s+\\d+\\.\\d+").matcher(text).find()
                && Pattern.compile("(?m)^\\s*\\.target\\s+\\w+").matcher(text).find();
    }

    /** Every {@code .entry} of {@code ptx} with its kernarg layout, in order. */
    static Map<String, KernargLayout> entries(String ptx) {
        Map<String, KernargLayout> out = new LinkedHashMap<>();
        Matcher m = ENTRY.matcher(ptx);
        while (m.find()) {
            out.put(m.group(1), layout(m.group(2)));
        }
        return out;
    }

    private static KernargLayout layout(String params) {
        List<long[]> sizeAlign = new ArrayList<>();
        Matcher p = PARAM.matcher(params);
        while (p.find()) {
            long width = Long.parseLong(p.group(3)) / 8;
            long count = p.group(4) != null ? Long.parseLong(p.group(4)) : 1;
            long align = p.group(1) != null ? Long.parseLong(p.group(1)) : width;
            sizeAlign.add(new long[] {width * count, align});
        }
        long[] sizes = new long[sizeAlign.size()];
        long[] aligns = new long[sizeAlign.size()];
        for (int i = 0; i < sizes.length; i++) {
            sizes[i] = sizeAlign.get(i)[0];
            aligns[i] = sizeAlign.get(i)[1];
        }
        return KernargLayout.of(sizes, aligns);
    }
}
