package org.hsa4j.cuda;

import java.util.ArrayList;
import java.util.List;
import java.util.function.BiFunction;
import java.util.function.Supplier;

import org.hsa4j.agent.Agent;
import org.hsa4j.runtime.AgentProvider;
import org.hsa4j.runtime.HsaRuntime;
import org.hsa4j.status.HsaException;

/**
 * Registers NVIDIA GPUs as agents of {@code HsaRuntime.init()} (named in
 * {@code META-INF/services/org.hsa4j.runtime.AgentProvider}): one {@link CudaAgent} per device,
 * after the runtime's own agents, per {@code HSA4J_CUDA} ({@link CudaMode}). With no driver or device
 * it adds nothing and its note says why; with {@code required} that is an error. Discovery runs once
 * per JVM (the environment cannot change); each runtime opens agents of its own on the devices.
 */
public final class CudaAgentProvider implements AgentProvider {
    private static volatile CudaPlatform discovered;

    private final Supplier<CudaPlatform> platform;

    /** The provider {@link java.util.ServiceLoader} makes: {@code HSA4J_CUDA}'s platform, discovered once per JVM. */
    public CudaAgentProvider() {
        this(CudaAgentProvider::platform);
    }

    /** A provider whose platform {@code platform} discovers (tests: a mode, a missing library). */
    CudaAgentProvider(Supplier<CudaPlatform> platform) {
        this.platform = platform;
    }

    @Override
    public String name() {
        return "cuda";
    }

    @Override
    public Found open(HsaRuntime runtime, int firstIndex) {
        return open(runtime, firstIndex, platform.get());
    }

    /** The agents of {@code platform}'s devices, indexed from {@code firstIndex}. */
    static Found open(HsaRuntime runtime, int firstIndex, CudaPlatform platform) {
        return open(firstIndex, platform, (d, index) -> CudaAgent.open(runtime, platform, d.ordinal(), index));
    }

    /**
     * The agents {@code opener} makes of {@code platform}'s devices. A device that cannot be opened
     * (its context refused, say, when another process holds the GPU in exclusive mode) is left out
     * with its reason in the note, so {@code HsaRuntime.init()} still starts; with {@code required}
     * it is the error.
     */
    static Found open(int firstIndex, CudaPlatform platform, BiFunction<CudaDeviceInfo, Integer, CudaAgent> opener) {
        if (!platform.available()) {
            return new Found(List.of(), "no CUDA: " + platform.reason());
        }
        List<Agent> agents = new ArrayList<>();
        List<CudaAgent> opened = new ArrayList<>();
        List<String> refused = new ArrayList<>();
        for (CudaDeviceInfo d : platform.devices()) {
            try {
                CudaAgent a = opener.apply(d, firstIndex + agents.size());
                opened.add(a);
                agents.add(a.hsaAgent());
            } catch (HsaException e) {
                if (platform.mode() == CudaMode.REQUIRED) {
                    for (CudaAgent a : opened) {
                        a.shutdown(e, 0);
                    }
                    throw new HsaException(e.status(), CudaMode.ENV + "=required but " + d.agentName()
                            + " cannot be opened: " + e.getMessage(), e);
                }
                refused.add(d.agentName() + " cannot be opened: " + e.getMessage());
            }
        }
        String note = agents.size() + " CUDA agent(s)" + (agents.isEmpty() ? ""
                : ": " + String.join(", ", agents.stream().map(Agent::name).toList()));
        return new Found(agents, refused.isEmpty() ? note : note + "; " + String.join("; ", refused));
    }

    /** The platform {@code HSA4J_CUDA} asks for, discovered on first use. */
    static CudaPlatform platform() {
        CudaPlatform p = discovered;
        if (p == null) {
            synchronized (CudaAgentProvider.class) {
                p = discovered;
                if (p == null) {
                    p = CudaPlatform.discover();   // throws for HSA4J_CUDA=required without a device
                    discovered = p;
                }
            }
        }
        return p;
    }
}
