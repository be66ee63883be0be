<?php
// The classic delayed queue ("Redis in Action" 6.4) as PHP applications write it, as
// a program: addFutureJob stores each job as JSON (its target queue, the function to
// run and its parameter) in a sorted set scored by its execution time; getQueue moves
// every due job to the list its JSON names.
//
//   php delayed.php STEP...
//
// Each STEP is one argument, its fields separated by "|":
//   now|SECONDS                          use SECONDS as time() from here on
//   add|JOB|QUEUE|FUN|TIME|PARAM_JSON    addFutureJob; prints "added"
//   getQueue|JOB                         moves due jobs; prints "moved MEMBER" each
//   pop|QUEUE                            a worker takes a job (rPop); prints
//                                        "popped FUN PARAM_JSON" or "popped none"
//
// The server is REDIS_HOST:REDIS_PORT (127.0.0.1:6379).

$redis = new Redis();
$redis->connect(getenv('REDIS_HOST') ?: '127.0.0.1', (int)(getenv('REDIS_PORT') ?: 6379));

$now = null;

function now() {
    global $now;
    return $now === null ? time() : $now;
}

// addFutureJob adds a job to the sorted set $job, to be moved to the list $queue at
// $time, where a worker runs $fun($parameter).
function addFutureJob($redis, $job, $queue, $fun, $time, $parameter) {
    $data = ['queue' => $queue, 'fun' => $fun, 'parameter' => $parameter];
    return $redis->zAdd($job, $time, json_encode($data));
}

// getQueue moves every due job of the sorted set $job to its queue.
function getQueue($redis, $job) {
    while (true) {
        // (1) The first element by score; none: return false.
        $item = $redis->zRange($job, 0, 0, true);
        if (!$item) {
            return false;
        }
        $member = array_key_first($item);
        $score = $item[$member];
        // (2) Not yet due: no later job is either.
        if ($score > now()) {
            return false;
        }
        // (3) Decode the job, push it onto its queue and remove it from the job set.
        $data = json_decode($member, true);
        if ($redis->lPush($data['queue'], $member) && $redis->zRem($job, $member)) {
            // (4) Log the move and look for the next due job.
            echo "moved $member\n";
            continue;
        }
        // (5) The move failed.
        return false;
    }
}

foreach (array_slice($argv, 1) as $step) {
    $f = explode('|', $step);
    switch ($f[0]) {
    case 'now':
        $now = (float)$f[1];
        break;
    case 'add':
        addFutureJob($redis, $f[1], $f[2], $f[3], (float)$f[4], json_decode($f[5], true));
        echo "added\n";
        break;
    case 'getQueue':
        getQueue($redis, $f[1]);
        break;
    case 'pop':
        $member = $redis->rPop($f[1]);
        if ($member === false) {
            echo "popped none\n";
            break;
        }
        $data = json_decode($member, true);
        echo "popped " . $data['fun'] . " " . json_encode($data['parameter']) . "\n";
        break;
    default:
        fwrite(STDERR, "delayed.php: unknown step $step\n");
        exit(2);
    }
}
