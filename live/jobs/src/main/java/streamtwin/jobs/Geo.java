package streamtwin.jobs;

/** Great-circle distance, identical to workloads/iot's Haversine so job and generator agree. */
final class Geo {
    private Geo() {}

    /** Sphere radius in metres (IUGG mean Earth radius), as workloads/iot.EarthRadius. */
    static final double EARTH_RADIUS_M = 6371008.8;

    /** Haversine distance in metres between two points given in degrees. */
    static double distanceM(double lat1, double lon1, double lat2, double lon2) {
        double p1 = Math.toRadians(lat1), p2 = Math.toRadians(lat2);
        double sp = Math.sin((p2 - p1) / 2);
        double sl = Math.sin(Math.toRadians(lon2 - lon1) / 2);
        double h = sp * sp + Math.cos(p1) * Math.cos(p2) * sl * sl;
        return 2 * EARTH_RADIUS_M * Math.asin(Math.min(1, Math.sqrt(h)));
    }
}
