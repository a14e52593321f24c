/**
 * GPU-to-CPU services for kernels: RPC ports in SVM served by host threads, and the syscall,
 * memory, printf and network services on them. Start with {@link org.hsa4j.services.Services}.
 * The network service uses only Netty's transport, buffer and common modules.
 */
module org.hsa4j.services {
    requires transitive org.hsa4j.runtime;
    requires com.lmax.disruptor;
    requires io.netty.buffer;
    requires io.netty.common;
    requires io.netty.transport;

    exports org.hsa4j.services;
    exports org.hsa4j.services.aql;
    exports org.hsa4j.services.memory;
    exports org.hsa4j.services.net;
    exports org.hsa4j.services.printf;
    exports org.hsa4j.services.rpc;
    exports org.hsa4j.services.syscall;
}
