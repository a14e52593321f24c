package org.hsa4j.runtime;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import org.hsa4j.agent.Agent;
import org.hsa4j.agent.DeviceType;
import org.hsa4j.memory.coherence.CacheGeometry;

/**
 * The rocminfo facts of an agent that its properties do not hold: UUID, marketing name, cache
 * line, caches and ISA name. A worker-pool agent runs on the host's cores, so its caches are the
 * host's, except in fidelity mode, where a GPU agent's compute units see memory through the
 * model's private L1s and shared L2 ({@link CacheGeometry}).
 */
final class AgentFacts {
    /** One cache level as rocminfo lists it. */
    record Cache(int level, String type, long bytes) {
    }

    private AgentFacts() {
    }

    /** A UUID stable for the same agent of the same configuration: rocminfo's "GPU-..." / "CPU-...". */
    static String uuid(Agent a) {
        String prefix = a.deviceType() == DeviceType.GPU ? "GPU-" : "CPU-";
        UUID u = UUID.nameUUIDFromBytes(("hsa4j:" + a.index() + ":" + a.name()).getBytes(StandardCharsets.UTF_8));
        return prefix + Long.toHexString(u.getMostSignificantBits() ^ u.getLeastSignificantBits());
    }

    /** The host CPU's model for the CPU agent, what the agent is for a worker-pool GPU. */
    static String marketingName(Agent a) {
        if (a.deviceType() == DeviceType.CPU) {
            return hostCpuModel();
        }
        return "hsa4j worker-pool GPU (" + a.computeUnits() + " compute units on the host's cores)";
    }

    /** Bytes of a cache line. */
    static int cachelineSize() {
        return CacheGeometry.LINE_SIZE;
    }

    /** The caches the agent's work-items see. */
    static List<Cache> caches(Agent a, boolean fidelity) {
        if (fidelity && a.deviceType() == DeviceType.GPU) {
            return List.of(new Cache(1, "Data (per compute unit, model)", (long) CacheGeometry.DEFAULT_L1_LINES * CacheGeometry.LINE_SIZE),
                    new Cache(2, "Unified (per agent, model)", (long) CacheGeometry.DEFAULT_L2_LINES * CacheGeometry.LINE_SIZE));
        }
        return hostCaches();
    }

    /** The ISA name: the JVM runs the kernels, with the wavefront size and XNACK as target features. */
    static String isaName(Agent a, boolean xnack) {
        return "hsa4j-jvm-java" + Runtime.version().feature() + "--wave" + a.wavefrontSize()
                + (a.deviceType() == DeviceType.GPU ? (xnack ? ":xnack+" : ":xnack-") : "");
    }

    private static String hostCpuModel() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/cpuinfo"))) {
                if (line.startsWith("model name")) {
                    return line.substring(line.indexOf(':') + 1).trim();
                }
            }
        } catch (IOException | RuntimeException e) {
            // not Linux: fall through
        }
        return System.getProperty("os.arch") + " CPU";
    }

    private static List<Cache> hostCaches() {
        List<Cache> out = new ArrayList<>();
        Path dir = Path.of("/sys/devices/system/cpu/cpu0/cache");
        for (int i = 0; i < 16; i++) {
            Path index = dir.resolve("index" + i);
            if (!Files.isDirectory(index)) {
                break;
            }
            try {
                int level = Integer.parseInt(Files.readString(index.resolve("level")).trim());
                String type = Files.readString(index.resolve("type")).trim();
                out.add(new Cache(level, type, parseSize(Files.readString(index.resolve("size")).trim())));
            } catch (IOException | RuntimeException e) {
                // a level sysfs does not describe is left out
            }
        }
        return out;
    }

    /** Parses sysfs sizes such as "32K", "1024K" or "32M". */
    static long parseSize(String s) {
        char unit = s.charAt(s.length() - 1);
        long scale = switch (unit) {
            case 'K' -> 1L << 10;
            case 'M' -> 1L << 20;
            case 'G' -> 1L << 30;
            default -> 1;
        };
        String digits = scale == 1 ? s : s.substring(0, s.length() - 1);
        return Long.parseLong(digits) * scale;
    }
}
