package org.hsa4j.cuda;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

import org.hsa4j.agent.Agent;
import org.hsa4j.runtime.AgentProvider;
import org.hsa4j.runtime.HsaException;
import org.hsa4j.runtime.HsaRuntime;

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
        if (!platform.available()) {
            return new Found(List.of(), "no CUDA: " + platform.reason());
        }
        List<Agent> agents = new ArrayList<>();
        List<CudaAgent> opened = new ArrayList<>();
        try {
            for (CudaDeviceInfo d : platform.devices()) {
                CudaAgent a = CudaAgent.open(runtime, platform, d.ordinal(), firstIndex + agents.size());
                opened.add(a);
                agents.add(a.hsaAgent());
            }
        } catch (HsaException e) {
            for (CudaAgent a : opened) {
                a.shutdown(e, 0);
            }
            throw e;
        }
        return new Found(agents, agents.size() + " CUDA agent(s): "
                + String.join(", ", agents.stream().map(Agent::name).toList()));
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
