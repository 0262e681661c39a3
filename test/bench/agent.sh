# agent.sh - bench piece (sourced by test/bench.sh): the allocation
# sampler's cost on an allocation-heavy workload (AllocBench, one thread,
# several GB/s). Runs without the agent and with each strategy interleaved,
# AGENT_ROUNDS times (default 5), and prints each median throughput and its
# difference to the median without the agent.
agent_bench() {
  _so=$TOP/dist/agent.so
  _rounds=${AGENT_ROUNDS:-5}
  _r=0
  : > "$JT_TMP/agent.bench"
  while [ "$_r" -lt "$_rounds" ]; do
    for _cfg in none bytes time allocationCount; do
      case $_cfg in
        none) _opt= ;;
        bytes) _opt="-agentpath:$_so=output.file=$JT_TMP/agent.out" ;;
        time) _opt="-agentpath:$_so=output.file=$JT_TMP/agent.out,sample.strategy=time" ;;
        *) _opt="-agentpath:$_so=output.file=$JT_TMP/agent.out,sample.strategy=allocationCount" ;;
      esac
      java $_opt -cp "$JT_TMP/classes" AllocBench 2 3 |
        awk -v c="$_cfg" '/^ops\/s/ { print c, $2 }' >> "$JT_TMP/agent.bench"
    done
    _r=$((_r + 1))
  done
  sort -k1,1 -k2n "$JT_TMP/agent.bench" | awk '
    { v[$1, ++n[$1]] = $2 }
    END {
      split("none bytes time allocationCount", order, " ")
      for (i = 1; i <= 4; i++) { c = order[i]; m[c] = v[c, int((n[c] + 1) / 2)] }
      label["none"] = "no agent"; label["bytes"] = "bytes 512 KiB (default)"
      label["time"] = "time 10 ms"; label["allocationCount"] = "allocationCount 100"
      for (i = 1; i <= 4; i++) {
        c = order[i]
        if (c == "none") printf "agent %-26s %12.0f allocations/s\n", label[c], m[c]
        else printf "agent %-26s %12.0f allocations/s %+6.1f %%\n", label[c], m[c],
          (m[c] - m["none"]) * 100 / m["none"]
      }
    }'
}
agent_bench
