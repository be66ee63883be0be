# The classic Redis waitlist recipe as a program: parties are scored by the seats they
# asked for and named "<Unix seconds> <name>", so that Redis orders equal seat counts by
# arrival; a free table of K seats takes the first party that asked for exactly K.
#
#   ruby waitlist.rb STEP...
#
# Each STEP is one of
#   now:SECONDS       use SECONDS (Unix time, may be fractional) as Time.now from here on
#   add:NAME:SEATS    put NAME on the waitlist; prints "added NAME"
#   seat:SEATS        seat the first party asking for SEATS; prints "seated MEMBER" or
#                     "seated none"
#
# The server is REDIS_HOST:REDIS_PORT (127.0.0.1:6379).
require "redis"

$now = nil

def now
  $now ? Time.at($now) : Time.now
end

redis = Redis.new(host: ENV.fetch("REDIS_HOST", "127.0.0.1"), port: ENV.fetch("REDIS_PORT", "6379").to_i)

ARGV.each do |step|
  op, *args = step.split(":")
  case op
  when "now"
    $now = Rational(args[0])
  when "add"
    name, seats = args
    # redis.zadd key score value
    redis.zadd("waitlist", seats.to_i, "#{now.to_i} #{name}")
    puts "added #{name}"
  when "seat"
    k = args[0].to_i
    # redis.zrangebyscore key, min, max *defaults to inclusive, use ( to exclude
    customer_name = redis.zrangebyscore("waitlist", "(#{k - 1}", "(#{k + 1}", limit: [0, 1])&.first
    # remove the key so it isn't called again, if it exists
    redis.zrem("waitlist", customer_name) if customer_name
    puts "seated #{customer_name || 'none'}"
  else
    abort "waitlist.rb: unknown step #{step}"
  end
end
