# The classic call-centre queue as a program: one sorted set "queue:calls", scored
# priority * 10_000_000_000 + (10_000_000_000 - Time.now.to_f), served by ZPOPMAX.
#
#   ruby callqueue.rb STEP...
#
# Each STEP is one of
#   now:SECONDS          use SECONDS (Unix time, may be fractional) as Time.now from here on
#   enqueue:ID:PRIORITY  prints "enqueued ID"
#   dequeue              prints "dequeued ID" or "dequeued none"
#   position:ID          prints "position ID N" or "position ID none"
#   cancel:ID            prints "cancelled ID true|false"
#   stale:SECONDS        prints "stale ID,ID,..." (calls waiting longer than SECONDS)
#   drain                dequeues until the queue is empty; prints "dequeued ID" each
#
# The server is REDIS_HOST:REDIS_PORT (127.0.0.1:6379).
require "redis"

$now = nil

def now
  $now ? Time.at($now) : Time.now
end

# OnePool stands in for a connection pool: it hands out its one connection.
class OnePool
  def initialize(redis)
    @redis = redis
  end

  def with
    yield @redis
  end
end

class CallQueue
  # Score = priority * 10_000_000_000 + (10_000_000_000 - timestamp)
  # A higher priority gives a higher score, served first by ZPOPMAX; within a
  # priority the earlier call has the higher score (the timestamp is subtracted).

  PRIORITY_MULTIPLIER = 10_000_000_000

  def initialize(redis_pool)
    @redis = redis_pool
    @key = "queue:calls"
  end

  def enqueue(call_id, priority: 1)
    score = priority * PRIORITY_MULTIPLIER + (PRIORITY_MULTIPLIER - now.to_f)
    @redis.with { |r| r.zadd(@key, score, call_id) }
  end

  # An operator takes the next call.
  def dequeue
    @redis.with do |r|
      # ZPOPMAX: atomically take the member with the highest score
      result = r.zpopmax(@key)
      result&.first # call_id
    end
  end

  # The caller's place in the queue (from the top, as it is served highest first).
  def position(call_id)
    @redis.with do |r|
      rank = r.zrevrank(@key, call_id)
      rank ? rank + 1 : nil # 1-based for the caller
    end
  end

  # The caller hung up: remove from the middle in O(log n).
  def cancel(call_id)
    @redis.with { |r| r.zrem(@key, call_id) }
  end

  # Calls waiting longer than max_wait_seconds (SLA monitoring). The packed score
  # mixes priority and time, so no ZRANGEBYSCORE can select "older than X" across
  # priorities: walk the whole queue and filter here.
  def stale_calls(max_wait_seconds: 30)
    cutoff_time = now.to_f - max_wait_seconds

    @redis.with do |r|
      r.zrangebyscore(@key, "-inf", "+inf", with_scores: true)
       .select { |_member, score|
         timestamp = PRIORITY_MULTIPLIER - (score % PRIORITY_MULTIPLIER)
         timestamp < cutoff_time
       }
       .map(&:first)
    end
  end
end

redis = Redis.new(host: ENV.fetch("REDIS_HOST", "127.0.0.1"), port: ENV.fetch("REDIS_PORT", "6379").to_i)
q = CallQueue.new(OnePool.new(redis))

ARGV.each do |step|
  op, *args = step.split(":")
  case op
  when "now"
    $now = Rational(args[0])
  when "enqueue"
    q.enqueue(args[0], priority: args[1].to_i)
    puts "enqueued #{args[0]}"
  when "dequeue"
    puts "dequeued #{q.dequeue || 'none'}"
  when "drain"
    while (id = q.dequeue)
      puts "dequeued #{id}"
    end
  when "position"
    puts "position #{args[0]} #{q.position(args[0]) || 'none'}"
  when "cancel"
    puts "cancelled #{args[0]} #{q.cancel(args[0])}"
  when "stale"
    puts "stale #{q.stale_calls(max_wait_seconds: args[0].to_i).join(',')}"
  else
    abort "callqueue.rb: unknown step #{step}"
  end
end
