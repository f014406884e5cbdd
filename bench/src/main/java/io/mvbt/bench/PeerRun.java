// SPDX-License-Identifier: Apache-2.0
package io.mvbt.bench;

import java.util.ArrayList;
import java.util.List;

import io.mvbt.bench.peers.Peer;

/** What one child JVM reported for one store and suite. */
final class PeerRun {
    final Peer peer;
    String settings = "";
    final List<String> notes = new ArrayList<>();
    final List<Protocol.Timing> timings = new ArrayList<>();
    final List<Protocol.Footprint> footprints = new ArrayList<>();
    final List<Protocol.Latency> latencies = new ArrayList<>();
    final List<Protocol.Cost> costs = new ArrayList<>();
    /** Why the run failed, or null. */
    String failure;

    PeerRun(Peer peer) {
        this.peer = peer;
    }

    Protocol.Timing timing(String phase) {
        for (Protocol.Timing t : timings) {
            if (t.phase().equals(phase)) {
                return t;
            }
        }
        return null;
    }

    Protocol.Latency latency(String phase) {
        for (Protocol.Latency l : latencies) {
            if (l.phase().equals(phase)) {
                return l;
            }
        }
        return null;
    }

    Protocol.Cost cost(String phase) {
        for (Protocol.Cost c : costs) {
            if (c.phase().equals(phase)) {
                return c;
            }
        }
        return null;
    }

    Protocol.Footprint footprint(String after) {
        for (Protocol.Footprint f : footprints) {
            if (f.after().equals(after)) {
                return f;
            }
        }
        return null;
    }
}
