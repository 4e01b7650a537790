-- A run: one profile of a build, with what the profile and a live capture say of it
-- (a capture's columns, host to baseline_run_id, are NULL for an ingested file).
--
-- @param model_id  the model
-- @param ingest_id  the ingest that made it
-- @param source_id  the profile's file
-- @param label  its label
-- @param now  the ingest's time
-- @param target  the target, canonical
-- @param device  the device the profile names
-- @param tvm_version  the TVM the profile names
-- @param profile_variant  how the profile was printed
-- @param reported_total_us  the total the profile printed
-- @param tags  the user's tags
-- @param host  the capturing machine
-- @param cpu_model  its CPU
-- @param cpu_cores  its cores
-- @param threads  the threads TVM ran with
-- @param os  its operating system
-- @param python_version  its Python
-- @param hotdb_version  the hotdb that captured
-- @param ir_sha256  the hash of the captured IR text
-- @param timing_method  how the capture timed the model
-- @param end_to_end_us  the capture's whole-model samples
-- @param baseline_run_id  the run a tune started from
-- @param replicate_of  the replicate group the run is one capture of
-- @param others_cpu_pct  the CPU other processes used while it timed, in %
-- @param capture_s  the capture's wall seconds
-- @param device_key  the tracker key of the device a capture over RPC ran on
-- @param rpc_tracker  that capture's tracker
-- @param rpc_server  the server that measured it
-- @param device_name  the device's own name, where it says one
INSERT INTO runs (run_id, model_id, ingest_id, source_id, label, created_at, target, device, tvm_version,
                  profile_variant, reported_total_us, tags, host, cpu_model, cpu_cores, threads, os,
                  python_version, hotdb_version, ir_sha256, timing_method, end_to_end_us, baseline_run_id,
                  replicate_of, others_cpu_pct, capture_s, device_key, rpc_tracker, rpc_server, device_name)
VALUES (nextval('run_id_seq'), $model_id, $ingest_id, $source_id, $label, $now, $target, $device, $tvm_version,
        $profile_variant, $reported_total_us, $tags, $host, $cpu_model, $cpu_cores, $threads, $os,
        $python_version, $hotdb_version, $ir_sha256, $timing_method, $end_to_end_us, $baseline_run_id,
        $replicate_of, $others_cpu_pct, $capture_s, $device_key, $rpc_tracker, $rpc_server, $device_name)
