-- One row per node of a profile, as the profile printed it (a debug-table row, a dump
-- node, a report call, a captured call): stored as its call (node_calls) and its
-- kernel signature (node_signatures, one row per distinct signature of the run), and
-- joined back here. Every other view reads nodes through this one.
--
-- @column run_id               the run
-- @column node_index           row order in the profile (execution order where known)
-- @column node_name            the node's name (for reports, the kernel symbol)
-- @column output_index         multi-output nodes print one row per output; 0 is the call
-- @column func_name            the kernel symbol (debug table column "Ops")
-- @column time_us              time per inference, summed over `calls`, in microseconds
-- @column calls                kernel calls this row stands for
-- @column reported_share_pct   the share of time the profile itself printed, in percent
-- @column out_shape            output shape as printed: packed layouts stay packed
-- @column out_dtype            output dtype
-- @column input_shapes         argument shapes, when the profile has them
-- @column input_dtypes         argument dtypes, when the profile has them
-- @column num_inputs           number of inputs
-- @column num_outputs          number of outputs
-- @column start_us             start time, in microseconds, when the profile has it
-- @column device               device the call ran on
-- @column line_no              line of the input file (NULL where the input has no lines)
-- @column kernel_family        anchor op family read from func_name
-- @column func_base            func_name without prefixes and numbering
-- @column func_number          numbering suffix of func_name (0 when none)
-- @column out_shape_logical    out_shape with packed layouts unpacked
-- @column workload_key         set when input shapes make the workload certain
-- @column data_shape_logical   logical data (first input) shape, packed layouts unpacked
-- @column weight_shape_logical logical weight shape, packed layouts unpacked
-- @column args_flat            argument shapes flattened to text, for matching tasks by arguments
-- @column kernel_hash          the kernel's structural hash, when the profile prints one
-- @column layouts              layout attributes of the call, as a JSON object
-- @column is_kernel            false for VM builtins (allocation, reshape views) that no task tunes
CREATE OR REPLACE VIEW nodes AS
SELECT c.run_id, c.node_index, s.node_name, s.output_index, s.func_name, c.time_us, c.calls, c.reported_share_pct,
       s.out_shape, s.out_dtype, s.input_shapes, s.input_dtypes, s.num_inputs, s.num_outputs, c.start_us, c.device,
       c.line_no, s.kernel_family, s.func_base, s.func_number, s.out_shape_logical, s.workload_key,
       s.data_shape_logical, s.weight_shape_logical, s.args_flat, s.kernel_hash, s.layouts, s.is_kernel
FROM node_calls AS c
JOIN node_signatures AS s USING (run_id, signature_id);
