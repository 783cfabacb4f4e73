--[[
job_submit.lua for `clustergym slurm-agent`: every new job of the partitions the agent manages is
submitted held (priority 0, "JobHeldAdmin"), so that it starts only when the agent has chosen it and
its nodes (the agent sets ReqNodeList, then `scontrol release`s it).

Install: copy this file next to slurm.conf (same directory) and add to slurm.conf:

    JobSubmitPlugins=lua

then `scontrol reconfigure`. The partitions the agent manages are read from the environment of
slurmctld (CLUSTERGYM_PARTITIONS="debug,batch") or, when unset, the list below. A job submitted to
no partition is in the default partition: set DEFAULT_PARTITION to it. Jobs of other partitions are
left alone. Job arrays and heterogeneous jobs are left alone too (the agent does not schedule them).
]]

local MANAGED = { debug = true }
local DEFAULT_PARTITION = "debug"

local env = os.getenv("CLUSTERGYM_PARTITIONS")
if env ~= nil and env ~= "" then
  MANAGED = {}
  for p in string.gmatch(env, "[^,]+") do MANAGED[p] = true end
end

local function managed(partition)
  if partition == nil or partition == "" then partition = DEFAULT_PARTITION end
  for p in string.gmatch(partition, "[^,]+") do
    if not MANAGED[p] then return false end
  end
  return true
end

function slurm_job_submit(job_desc, part_list, submit_uid)
  if job_desc.array_inx ~= nil and job_desc.array_inx ~= "" then return slurm.SUCCESS end
  if managed(job_desc.partition) then
    job_desc.priority = 0
    slurm.log_info("clustergym job_submit.lua: holding job %s of user %u for the agent", tostring(job_desc.name), submit_uid)
  end
  return slurm.SUCCESS
end

function slurm_job_modify(job_desc, job_rec, part_list, modify_uid)
  return slurm.SUCCESS
end

slurm.log_info("clustergym job_submit.lua loaded")
return slurm.SUCCESS
